"""The generated notebooks: each tree's wording, and the Colab set-up cell.

A notebook in ``solutions/`` is written once for two trees. The course repository's
``chapters/`` (``make stubs``) sits beside the reference; a student release (``make release``)
does not, so some prose differs ("run it against the reference" is true in one tree only).
A cell tagged ``repository-only`` is left out of the release's notebook, one tagged
``release-only`` out of the repository's; untagged cells are in both.

Every generated notebook also opens with one code cell that sets the course up on Google
Colab and does nothing anywhere else (``colab_cell``; the work is ``tools/colab.py``). Its
``COURSE_URL`` is the release's setting (``make release URL=…``): the course has no address
of its own, so in the repository's notebooks it is empty and the cell says so on Colab.
The course goes under Colab's ``/content`` (``SPARROW_COLAB_HOME`` moves it: the tests do),
never under the working folder, which the cell's first run changes to the chapter's.
"""

from __future__ import annotations

import json

TARGETS = ("repository", "release")
LEFT_OUT = {"repository": "release-only", "release": "repository-only"}
COLAB_CELL_ID = "colab-setup"

COLAB_SOURCE = """\
# On Google Colab this cell sets the course up: it clones the course, installs what is missing
# and opens this chapter's folder. Anywhere else it does nothing.
COURSE_URL = {url!r}  # the course's git address, set when the instructor built this release
KEEP_ON_DRIVE = True  # True: your work lives on your Google Drive and survives a runtime reset
import sys

if "google.colab" in sys.modules:
    import os
    import subprocess
    from pathlib import Path

    home = Path(os.environ.get("SPARROW_COLAB_HOME", "/content"))  # Colab's own folder
    if KEEP_ON_DRIVE:
        from google.colab import drive

        drive.mount(str(home / "drive"))
        home = home / "drive" / "MyDrive"
    course = home / "sparrow"
    if not (course / "tools" / "colab.py").is_file():
        if not COURSE_URL:
            raise RuntimeError(
                "This notebook has no course address to clone: open it from the release your "
                "instructor published, or put a copy of the course in " + str(course)
            )
        subprocess.run(["git", "clone", "--quiet", COURSE_URL, str(course)], check=True)
    sys.path.insert(0, str(course))
    from tools.colab import setup

    setup(course, {package!r}, on_drive=KEEP_ON_DRIVE)"""


def notebook_bytes(nb: dict) -> bytes:
    """A notebook as the course writes every notebook (nbformat's own layout)."""
    return (json.dumps(nb, indent=1, ensure_ascii=False) + "\n").encode()


def colab_cell(package: str, url: str = "") -> dict:
    """The first code cell of chapter ``package``'s notebook, cloning from ``url``."""
    if any(c in url for c in "\"'\\\n\r"):
        raise ValueError(f"a course URL may not hold quotes, backslashes or newlines: {url!r}")
    source = COLAB_SOURCE.format(url=url, package=package)
    return {
        "cell_type": "code",
        "execution_count": None,
        "id": COLAB_CELL_ID,
        "metadata": {},
        "outputs": [],
        "source": source.splitlines(keepends=True),
    }


def notebook_for(data: bytes, package: str, *, target: str, url: str = "") -> bytes:
    """A ``solutions/`` notebook as ``target``'s tree gets it: the other tree's cells left
    out, the Colab cell first among the code cells (after the title's markdown)."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, not {target!r}")
    nb = json.loads(data)
    cells = [
        c for c in nb["cells"] if LEFT_OUT[target] not in c.get("metadata", {}).get("tags", [])
    ]
    first_code = next((i for i, c in enumerate(cells) if c["cell_type"] == "code"), len(cells))
    nb["cells"] = [*cells[:first_code], colab_cell(package, url), *cells[first_code:]]
    return notebook_bytes(nb)
