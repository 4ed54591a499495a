"""Unit: a hook spool read incrementally (provider._hook_signals), with no tmux."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from lab_widget.provider import spool_drop, spool_entries, spool_records, spool_signature


def put(spool: Path, name: str, record: object) -> None:
    tmp = spool / f"{name}.tmp"
    tmp.write_text(json.dumps(record))
    tmp.rename(spool / f"{name}.json")


def test_records_come_in_name_order_and_follow_drops_and_late_names(tmp_path: Path) -> None:
    spool = tmp_path / "signals"
    assert spool_records(spool) == [] and spool_signature(spool) == ()
    spool.mkdir()
    put(spool, "2000-1", {"n": 2})
    put(spool, "3000-1", {"n": 3})
    (spool / "4000-1.tmp").write_text("{half")  # not renamed yet: not a record
    assert spool_records(spool) == [{"n": 2}, {"n": 3}]
    put(spool, "1000-1", {"n": 1})  # sorts before the last one read
    put(spool, "5000-1", ["not", "an", "object"])
    assert spool_records(spool) == [{"n": 1}, {"n": 2}, {"n": 3}, {}]
    spool_drop(spool, ["2000-1.json", "gone.json"])
    assert spool_entries(spool) == [
        ("1000-1.json", {"n": 1}),
        ("3000-1.json", {"n": 3}),
        ("5000-1.json", {}),
    ]
    assert spool_signature(spool) == ("1000-1.json", "3000-1.json", "5000-1.json")


def test_a_quiet_spool_is_not_listed_again_yet_a_new_record_is_seen(tmp_path: Path) -> None:
    spool = tmp_path / "signals"
    spool.mkdir()
    put(spool, "1000-1", {"n": 1})
    quiet = time.time_ns() - 5_000_000_000
    os.utime(spool, ns=(quiet, quiet))
    assert spool_records(spool) == [{"n": 1}]
    # A file that appears without moving the folder's mtime (as within one clock tick
    # after a listing made long after that tick could not) is not looked for...
    put(spool, "2000-1", {"n": 2})
    os.utime(spool, ns=(quiet, quiet))
    assert spool_records(spool) == [{"n": 1}]
    # ...while any change to the folder is.
    put(spool, "3000-1", {"n": 3})
    assert spool_records(spool) == [{"n": 1}, {"n": 2}, {"n": 3}]


def test_a_folder_changed_less_than_a_second_ago_is_listed_every_time(tmp_path: Path) -> None:
    spool = tmp_path / "signals"
    spool.mkdir()
    put(spool, "1000-1", {"n": 1})
    assert spool_records(spool) == [{"n": 1}]
    mtime = spool.stat().st_mtime_ns
    put(spool, "2000-1", {"n": 2})
    os.utime(spool, ns=(mtime, mtime))  # the same tick as the listing that saw one record
    assert spool_records(spool) == [{"n": 1}, {"n": 2}]
