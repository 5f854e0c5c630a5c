"""``vecscore warmup`` runs every group through the compiled route without an error."""
from __future__ import annotations

import pytest

from vecscore import VecscoreError
from vecscore.cli.main import main
from vecscore.warmup import GROUPS, warmup


def test_every_group_runs():
    seen = []
    seconds = warmup(report=seen.append)
    assert list(seconds) == list(GROUPS) == ["rouge", "bleu", "rouge155", "rouge-weighted", "chrf", "ter", "coco"]
    assert len(seen) == len(GROUPS)


def test_the_command_takes_groups_and_refuses_unknown_ones(capsys):
    assert main(["warmup", "--only", "chrf", "ter"]) == 0
    with pytest.raises(VecscoreError, match="unknown warmup group"):
        warmup(["bleu", "nope"])
