"""The course on Google Colab: what each notebook's first cell calls once it has the course.

The cell (written by the generator, the same in every chapter) clones the course into
``sparrow/`` (on your Google Drive when ``KEEP_ON_DRIVE``), then calls ``setup``:

- installs, with pip, the packages the notebooks and checks import that the runtime lacks
  (``RUNTIME``, at the versions ``requirements.txt`` pins); what Colab already has is kept,
  so nothing it imported is replaced under it;
- makes the chapter's folder the working folder, where the notebook's next cell finds the
  course, as it does on your own machine;
- says where your work lives and how to keep it: files on the runtime's own disk are gone
  when Colab resets the runtime; on Drive they stay. ``download()`` zips every ``.py`` file
  of your ``chapters/`` and hands the zip to the browser.

Only the standard library is used here: this runs before anything is installed.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

COURSE = Path(__file__).resolve().parent.parent
# distribution name → the module it installs: what the notebooks and the checks import
RUNTIME = {"numpy": "numpy", "matplotlib": "matplotlib", "tqdm": "tqdm"}
_NAME = re.compile(r"^\s*([A-Za-z0-9_.-]+)")


def missing_requirements(requirements: Path, runtime: dict[str, str] = RUNTIME) -> list[str]:
    """The lines of ``requirements`` (markers kept) for each package of ``runtime`` that
    cannot be imported here."""
    lines = []
    for line in requirements.read_text(encoding="utf-8").splitlines():
        requirement = line.split("#", 1)[0].strip()  # pip takes no comment on its command line
        match = _NAME.match(requirement)
        name = match.group(1).lower() if match else ""
        if name in runtime and importlib.util.find_spec(runtime[name]) is None:
            lines.append(requirement)
    return lines


def install(lines: list[str]) -> None:
    """``pip install`` these requirement lines into this interpreter (pip's own settings,
    ``PIP_INDEX_URL`` or ``PIP_FIND_LINKS``, apply)."""
    if lines:
        print("installing " + ", ".join(_NAME.match(line).group(1) for line in lines) + " …")
        command = [sys.executable, "-m", "pip", "install", "--quiet", *lines]
        subprocess.run(command, check=True)
        importlib.invalidate_caches()


def setup(package: str, *, on_drive: bool) -> Path:
    """Install what is missing, enter ``chapters/<package>``, say where the work lives."""
    folder = COURSE / "chapters" / package
    if not folder.is_dir():
        raise FileNotFoundError(
            f"{folder} is missing: this course copy has no {package}. If it is an older "
            "release, take the newer one (make update) or clone the course again elsewhere."
        )
    install(missing_requirements(COURSE / "requirements.txt"))
    os.chdir(folder)
    print(where_work_lives(folder, on_drive=on_drive))
    return folder


def where_work_lives(folder: Path, *, on_drive: bool) -> str:
    """What the student reads after the set-up: their files, and how to keep them."""
    keep = (
        "They are on your Google Drive: they survive when Colab resets this runtime, and "
        "running this cell again finds them."
        if on_drive
        else "They are on this runtime's own disk, which Colab wipes when it resets the "
        "runtime (after it idles, or after some hours). Before you stop, run\n"
        "    from tools.colab import download; download()\n"
        "to save your chapters as a zip, or set KEEP_ON_DRIVE = True and run this cell again."
    )
    return (
        f"Sparrow is ready in {folder.parent.parent}.\n"
        f"Your work: the .py files in {folder} — open them from Colab's Files panel (the "
        "folder on the left) and edit them there; a check cell checks them as saved.\n"
        f"{keep}\nThis notebook itself: File → Save a copy in Drive keeps your notes."
    )


def download(name: str = "sparrow-chapters.zip") -> Path:
    """Zip every ``.py`` file of ``chapters/`` into ``name`` and offer it to the browser."""
    target = Path.cwd() / name
    chapters = COURSE / "chapters"
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(chapters.rglob("*.py")):
            if "__pycache__" not in path.parts:
                archive.write(path, path.relative_to(COURSE).as_posix())
    from google.colab import files  # only on Colab

    files.download(str(target))
    return target
