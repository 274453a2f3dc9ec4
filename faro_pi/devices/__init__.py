"""The table's hardware: the shoe's buttons, the case keeper's LEDs, the OLED.

The daemon tells its outputs (:class:`~faro_pi.devices.case_keeper.CaseKeeper`,
:class:`~faro_pi.devices.oled.display.TableDisplay`) of every event through
one small :class:`Output` protocol, so it needs to know nothing of either.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from faro_pi.game.events import Event
    from faro_pi.game.rules import Table


@runtime_checkable
class Output(Protocol):
    """Something that shows the table: told of each applied event, on the loop.

    ``show`` must return at once (an output that is slow to draw does so off
    the loop); ``settled`` waits until the latest state is what shows, so the
    simulator and the tests know when to look; ``close`` releases the device.
    """

    def show(self, table: Table, event: Event | None = None) -> None:
        """Shows ``table`` after ``event``; with no event, as it stands (at start)."""

    async def settled(self) -> None:
        """Returns once the state last given to :meth:`show` is showing (or cannot be)."""

    def close(self) -> None:
        """Stops showing and releases the hardware."""
