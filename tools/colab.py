"""The course on Google Colab: what each notebook's first cell calls once it has the course.

The cell (written by the generator, the same in every chapter) clones the course into
``/content/sparrow/`` (``MyDrive/sparrow/`` on your Google Drive when ``KEEP_ON_DRIVE``),
or finds the clone it made before, then calls ``setup``:

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
from collections.abc import Collection
from pathlib import Path

COURSE = Path(__file__).resolve().parent.parent
# distribution name → the module it installs: what the notebooks and the checks import
RUNTIME = {"numpy": "numpy", "matplotlib": "matplotlib", "tqdm": "tqdm"}
_NAME = re.compile(r"^\s*([A-Za-z0-9_.-]+)")


def name_of(requirement: str) -> str:
    """The distribution a requirement line names, lower-cased (``numpy`` of ``numpy==2.4.6``)."""
    match = _NAME.match(requirement)
    return match.group(1).lower() if match else ""


def pins(requirements: Path, names: Collection[str]) -> list[str]:
    """The lines of ``requirements`` that pin one of ``names``: comments stripped (pip takes
    none on its command line), markers kept (pip skips a line whose marker does not hold,
    so each Python gets its own pin)."""
    lines = []
    for line in requirements.read_text(encoding="utf-8").splitlines():
        requirement = line.split("#", 1)[0].strip()
        if name_of(requirement) in names:
            lines.append(requirement)
    return lines


def missing_requirements(requirements: Path, runtime: dict[str, str] = RUNTIME) -> list[str]:
    """The pins (``pins``) of each package of ``runtime`` that cannot be imported here."""
    lines = pins(requirements, runtime)
    return [line for line in lines if importlib.util.find_spec(runtime[name_of(line)]) is None]


def install(lines: list[str]) -> None:
    """``pip install`` these requirement lines into this interpreter (pip's own settings,
    ``PIP_INDEX_URL`` or ``PIP_FIND_LINKS``, apply)."""
    if lines:
        print("installing " + ", ".join(name_of(line) for line in lines) + " …")
        command = [sys.executable, "-m", "pip", "install", "--quiet", *lines]
        subprocess.run(command, check=True)
        importlib.invalidate_caches()


def setup(course: Path, package: str, *, on_drive: bool) -> Path:
    """Install what is missing, enter ``course/chapters/<package>``, say where the work
    lives. ``course`` is the cell's, not this module's folder: a second run of the cell
    (Drive switched on, say) may name another copy than the one this module came from."""
    course = Path(course)
    folder = course / "chapters" / package
    if not folder.is_dir():
        raise FileNotFoundError(
            f"{folder} is missing: this course copy has no {package}. If it is an older "
            "release, take the newer one (make update) or clone the course again elsewhere."
        )
    install(missing_requirements(course / "requirements.txt"))
    os.chdir(folder)
    print(where_work_lives(folder, on_drive=on_drive))
    imported = getattr(sys.modules.get("chapters"), "__file__", None)
    if imported and not Path(imported).resolve().is_relative_to(course.resolve()):
        print(
            f"\nThis session imported the course from {Path(imported).parent.parent} before: "
            "restart it (Runtime → Restart session) and run the notebook from the top, so "
            "that it uses this copy."
        )
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
    """Zip every ``.py`` file of the course's ``chapters/`` (the course the working folder
    is in, found as the notebook finds it) into ``name`` and offer it to the browser."""
    here = Path.cwd()
    course = next((p for p in [here, *here.parents] if (p / "chapters").is_dir()), COURSE)
    target = here / name
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted((course / "chapters").rglob("*.py")):
            if "__pycache__" not in path.parts:
                archive.write(path, path.relative_to(course).as_posix())
    from google.colab import files  # only on Colab

    files.download(str(target))
    return target
