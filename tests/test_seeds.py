"""A batch is graded with a secret seed unless the instructor asks for the public one
(``autograder/seeds.py``; the grade command's own run: tests/test_grading.py)."""

from __future__ import annotations

import stat
import zipfile
from pathlib import Path

import pytest

from autograder import seeds
from autograder.checking import PUBLIC_SEED


def test_with_no_seed_given_a_fresh_secret_one_is_drawn_and_kept_for_its_owner_alone(
    tmp_path: Path,
) -> None:
    kept = tmp_path / "grades" / "seed.txt"
    seed, said = seeds.batch_seed(None, kept)
    assert seed != PUBLIC_SEED and seed >= 0 and int(kept.read_text()) == seed
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert "a fresh secret seed" in said[0] and not any("warning" in line for line in said)
    again, said = seeds.batch_seed(None, kept)  # a regrade of the batch
    assert again == seed and "from" in said[0]
    assert not list(kept.parent.glob("*.part"))


def test_the_public_seed_is_an_explicit_choice_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SPARROW_SEED", raising=False)
    kept = tmp_path / "seed.txt"
    seed, said = seeds.batch_seed(seeds.given("public", None), kept)
    assert seed == PUBLIC_SEED and not kept.exists()
    assert said == [seeds.PUBLIC_WARNING]
    monkeypatch.setenv("SPARROW_SEED", "public")
    assert seeds.given(None, None) == PUBLIC_SEED


def test_a_given_seed_wins_and_bad_ones_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SPARROW_SEED", raising=False)
    assert seeds.given(None, None) is None
    file = tmp_path / "mine.txt"
    file.write_text(" 123456789012345 \n")
    assert seeds.given(None, file) == 123456789012345
    monkeypatch.setenv("SPARROW_SEED", "77")
    assert seeds.given(None, None) == 77 and seeds.given("5", file) == 5
    seed, said = seeds.batch_seed(77, tmp_path / "kept.txt")
    assert seed == 77 and said == [seeds.SHORT_WARNING] and not (tmp_path / "kept.txt").exists()
    with pytest.raises(ValueError, match="--seed must hold a non-negative integer or 'public'"):
        seeds.given("-3", None)
    file.write_text("twelve\n")
    with pytest.raises(ValueError, match=r"mine\.txt must hold"):
        seeds.given(None, file)
    with pytest.raises(FileNotFoundError, match="no seed file"):
        seeds.given(None, tmp_path / "nowhere.txt")


def test_the_gradescope_zip_carries_a_secret_seed_unless_asked_for_the_public_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tools import gradescope

    monkeypatch.delenv("SPARROW_SEED", raising=False)
    out = tmp_path / "dist" / "gradescope-ch01.zip"
    kept = tmp_path / "dist" / "gradescope-ch01.seed.txt"
    assert gradescope.main(["1", "--out", str(out)]) == 0
    assert "a fresh secret seed" in capsys.readouterr().err
    with zipfile.ZipFile(out) as zf:
        assert zf.read("seed.txt").decode() == kept.read_text()
        assert "else ARGS+=(--seed public)" in zf.read("run_autograder").decode()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    drawn = kept.read_text()
    assert gradescope.main(["1", "--out", str(out)]) == 0  # rebuilt: the same seed
    with zipfile.ZipFile(out) as zf:
        assert zf.read("seed.txt").decode() == drawn
    assert gradescope.main(["1", "--out", str(out), "--seed", "public"]) == 0
    assert seeds.PUBLIC_WARNING in capsys.readouterr().err
    with zipfile.ZipFile(out) as zf:
        assert "seed.txt" not in zf.namelist()
