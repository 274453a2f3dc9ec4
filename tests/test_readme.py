"""The README says what the code does."""

from pathlib import Path

from faro_pi.service.config import reference_markdown

README = Path(__file__).parent.parent / "README.md"


def test_the_readme_documents_every_config_key_with_its_default():
    text = README.read_text()
    start = text.index("<!-- config-reference")
    start = text.index("\n", start) + 1
    end = text.index("<!-- end config-reference -->")
    assert text[start:end].strip() == reference_markdown().strip(), (
        "README's configuration table is out of date: paste reference_markdown() in"
    )


def test_the_quick_start_gives_the_two_commands():
    text = README.read_text()
    assert "make sim" in text and "make test" in text
