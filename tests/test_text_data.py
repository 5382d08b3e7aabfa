"""The text corpus (datasets/botchan.npz) and support.text_data: vocabulary, split, batches."""

from __future__ import annotations

import hashlib
import io
import shutil
import tarfile
from pathlib import Path

import numpy as np
import pytest

from support import build_datasets, datasets, text_data

SHIPPED = Path(__file__).resolve().parent.parent / "datasets"


@pytest.fixture(scope="module")
def text() -> str:
    return datasets.load_corpus()


def test_the_corpus_is_the_novel_in_plain_ascii(text):
    assert len(text) == 254_781 and text.isascii()
    assert text.startswith("BOTCHAN (MASTER DARLING)\n") and text.endswith("--(THE END)--\n")
    assert "Gutenberg" not in text and "\r" not in text
    assert len(set(text)) == 77
    # what is stored: the ASCII codes, uint8, read here without the loader
    with np.load(SHIPPED / "botchan.npz", allow_pickle=False) as archive:
        assert archive.files == ["text"]
        stored = archive["text"]
    assert stored.dtype == np.uint8 and bytes(stored) == text.encode("ascii")


def test_vocabulary_round_trip(text):
    vocab = text_data.Vocab.from_text(text)
    assert list(vocab.chars) == sorted(set(text)) and len(vocab) == 77
    assert vocab.chars[0] == "\n" and vocab.chars[1] == " "
    sample = text[1000:3000]
    ids = vocab.encode(sample)
    assert ids.dtype == np.int64 and ids.shape == (2000,)
    assert [vocab.chars[i] for i in ids] == list(sample)
    assert vocab.decode(ids) == sample
    with pytest.raises(KeyError, match="'é' is not in the vocabulary"):
        vocab.encode("café")


def test_split_is_the_first_90_percent_and_the_rest(text):
    data = text_data.corpus()
    n = len(text)
    assert len(data.train) == int(0.9 * n) == 229_302 and len(data.val) == n - 229_302
    ids = data.vocab.encode(text)
    assert np.array_equal(np.concatenate([data.train, data.val]), ids)
    assert data.vocab.decode(data.val[-14:]) == "--(THE END)--\n"


def test_batches_targets_are_the_inputs_shifted_by_one():
    data = np.arange(1000, dtype=np.int64) * 7 % 101  # any sequence, known positions
    pairs = list(text_data.batches(data, steps=3, batch_size=4, block_size=8, seed=5))
    starts = np.random.default_rng(5).integers(0, 1000 - 8, size=(3, 4), dtype=np.int64)
    assert len(pairs) == 3
    for (x, y), step_starts in zip(pairs, starts, strict=True):
        assert x.shape == y.shape == (4, 8) and x.dtype == np.int64
        for row, s in enumerate(step_starts):
            assert np.array_equal(x[row], data[s : s + 8])
            assert np.array_equal(y[row], data[s + 1 : s + 9])
        assert np.array_equal(x[:, 1:], y[:, :-1])


def test_batches_are_seeded_and_stay_inside_the_text():
    data = np.arange(50, dtype=np.int64)
    a = text_data.batch_starts(50, 200, 8, 10, seed=1)
    assert np.array_equal(a, text_data.batch_starts(50, 200, 8, 10, seed=1))
    assert not np.array_equal(a, text_data.batch_starts(50, 200, 8, 10, seed=2))
    assert a.min() == 0 and a.max() == 50 - 10 - 1  # every start drawn, the last one too
    x, y = text_data.batch_at(data, a.reshape(-1), 10)
    assert x.min() == 0 and y.max() == 49
    with pytest.raises(ValueError, match="no sequence of 10"):
        text_data.batch_starts(10, 1, 1, 10, seed=0)


def test_a_corrupt_corpus_is_refused(tmp_path, monkeypatch):
    copy = tmp_path / "datasets"
    shutil.copytree(SHIPPED, copy)
    monkeypatch.setattr(datasets, "DATA_DIR", copy)
    raw = bytearray((copy / "botchan.npz").read_bytes())
    raw[-100] ^= 1
    (copy / "botchan.npz").write_bytes(bytes(raw))
    with pytest.raises(datasets.ChecksumError, match=r"botchan\.npz is corrupt or was changed"):
        datasets.load_corpus()


def _gutenberg(body: str) -> bytes:
    head = (
        "\ufeffThe Project Gutenberg EBook\r\n*** START OF THIS EBOOK ***\r\nProduced by X\r\n\r\n"
    )
    tail = "\r\n[A: typo]\r\nEnd of the EBook\r\n*** END OF THIS EBOOK ***\r\nlicence\r\n"
    return (head + body.replace("\n", "\r\n") + tail).encode("utf-8")


def test_gutenberg_text_keeps_the_book_only():
    spec = build_datasets.GutenbergText("x", start="*** START OF", last="--(THE END)--")
    body = "TITLE\nIt was [A] a night.\n--(THE END)--"
    assert build_datasets.gutenberg_text(_gutenberg(body), spec, "x") == body + "\n"
    with pytest.raises(build_datasets.SourceError, match="outside ASCII"):
        build_datasets.gutenberg_text(_gutenberg("caf\u00e9\n--(THE END)--"), spec, "x")
    with pytest.raises(build_datasets.SourceError, match="0 lines '--\\(THE END\\)--'"):
        build_datasets.gutenberg_text(_gutenberg("no end"), spec, "x")


def test_rebuild_a_text_from_a_source_archive(tmp_path, monkeypatch):
    """The build path of the corpus, on a fake sdist: read, strip, store, check."""
    copy = tmp_path / "datasets"
    shutil.copytree(SHIPPED, copy)
    monkeypatch.setattr(datasets, "DATA_DIR", copy)
    payload = _gutenberg("A short book.\n--(THE END)--")
    folder = tmp_path / "packages"
    folder.mkdir()
    with tarfile.open(folder / "tinybook-1.0.tar.gz", "w:gz") as archive:
        info = tarfile.TarInfo("tinybook-1.0/book.txt")
        info.size = len(payload)
        archive.addfile(info, io.BytesIO(payload))
    source = build_datasets.Source(
        "tinybook==1.0", "tinybook-1.0/book.txt", hashlib.sha256(payload).hexdigest(), sdist=True
    )
    spec = build_datasets.GutenbergText("book", start="*** START OF", last="--(THE END)--")
    monkeypatch.setattr(build_datasets, "SOURCES", {"book": source})
    monkeypatch.setattr(build_datasets, "IMAGE_SETS", {})
    monkeypatch.setattr(build_datasets, "WORD_LISTS", {})
    monkeypatch.setattr(build_datasets, "TEXTS", {"tinybook": spec})
    monkeypatch.setattr(datasets, "GENERATED", {})
    Mode = build_datasets.Mode
    assert build_datasets.rebuild(folder, Mode.UPDATE) == 0
    assert datasets.load_corpus("tinybook") == "A short book.\n--(THE END)--\n"
    assert build_datasets.rebuild(folder, Mode.CHECK) == 0


def test_the_shipped_corpus_matches_its_source_entry():
    source = build_datasets.SOURCES[build_datasets.TEXTS["botchan"].source]
    assert source.requirement == "sentencepiece==0.2.1" and source.sdist
    readme = (SHIPPED / "README.md").read_text(encoding="utf-8")
    assert "botchan.npz" in readme and "public domain" in readme
