"""The floor of tables: every table's journal through an MQTT broker, and ``faro-pi floor``.

The table's side is :mod:`faro_pi.floor.publisher` (started by the daemon when
``[floor]`` names a broker); the floor's is :mod:`faro_pi.floor.command`, which
runs :mod:`faro_pi.floor.pitboss` (the copies) and :mod:`faro_pi.floor.page`
(the floor page). ``docs/floor.md`` sets a floor up step by step.
"""
