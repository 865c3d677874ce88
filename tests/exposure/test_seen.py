"""The walk's record of file identities met so far (hardlinks are counted once)."""

from __future__ import annotations

import random

from localfs_explorer.servers.gee_sweet.exposure.host import _Seen

DEV = 7


def test_a_listing_of_new_inodes_is_taken_and_nothing_repeats():
    seen = _Seen()
    assert seen.add_listing(DEV, [1, 2])
    assert seen.add_listing(DEV, [3])
    assert seen.add_listing(DEV, [])  # an empty listing holds nothing to note
    assert seen.repeated() == {}
    # A listing's files are not looked up one by one: only names met one at a time are.
    assert seen.get((DEV, 2)) is None
    seen.add((DEV, 9), "/b/z")
    assert seen.get((DEV, 9)) == "/b/z"
    assert seen.get((DEV + 1, 9)) is None  # another device: another file


def test_an_inode_of_an_earlier_listing_is_named_afterwards():
    seen = _Seen()
    assert seen.add_listing(DEV, [1, 2])
    assert seen.add_listing(DEV, [5, 2, 4])  # taken: the repeat is found at the end
    assert seen.add_listing(DEV + 1, [1, 2])  # the same numbers on another device
    assert seen.repeated() == {DEV: frozenset({2})}


def test_an_inode_met_one_at_a_time_after_a_listing_is_named_afterwards():
    seen = _Seen()
    assert seen.add_listing(DEV, [10, 11, 12])
    seen.add((DEV, 11), "/late/name")
    seen.add((DEV, 13), "/other")
    assert seen.repeated() == {DEV: frozenset({11})}


def test_a_listing_holding_an_inode_met_one_at_a_time_is_refused():
    seen = _Seen()
    seen.add((DEV, 3), "/b/z")
    assert not seen.add_listing(DEV, [4, 3])
    assert seen.add_listing(DEV, [4, 5])  # nothing of the refused one was kept
    assert seen.add_listing(DEV + 1, [3])
    assert seen.repeated() == {}


def test_an_inode_listed_twice_is_refused():
    seen = _Seen()
    assert not seen.add_listing(DEV, [6, 6])
    assert seen.add_listing(DEV, [6])
    assert seen.repeated() == {}


def test_a_watched_inode_sends_its_listing_back():
    seen = _Seen()
    seen.watch((DEV, 7))
    assert not seen.add_listing(DEV, [7, 8])
    assert seen.add_listing(DEV, [8, 19])
    seen.add((DEV, 7), "/h/w")  # met one at a time, still watched
    assert not seen.add_listing(DEV, [7])
    assert seen.add_listing(DEV + 1, [7, 20])  # watched on its own device only
    assert seen.repeated() == {}


def test_a_suspect_is_noted_by_name_where_first_listed():
    """On the second walk, the inodes the first met twice are noted by name in the
    first listing holding them; a later listing holding one is refused."""
    seen = _Seen({DEV: frozenset({20, 30})})
    assert seen.add_listing(DEV, [19, 20], "/a/", ["x", "y"])
    assert seen.get((DEV, 20)) == "/a/y"
    assert seen.get((DEV, 19)) is None  # not a suspect: kept as a number only
    assert not seen.add_listing(DEV, [21, 20], "/b/", ["p", "q"])
    assert seen.add_listing(DEV, [30], "/c/", ["z"])  # suspects only
    assert seen.get((DEV, 30)) == "/c/z"
    assert not seen.add_listing(DEV + 0, [31, 30], "/d/", ["s", "t"])
    # A listing of a suspect whose names are not given is left to the entry walk.
    fresh = _Seen({DEV: frozenset({40})})
    assert not fresh.add_listing(DEV, [40, 41])
    assert fresh.get((DEV, 40)) is None
    assert seen.repeated() == {} and fresh.repeated() == {}


def test_an_identity_wider_than_64_bits_is_left_to_the_entry_by_entry_walk():
    seen = _Seen()
    assert not seen.add_listing(DEV, [5, 2**64 + 5])
    assert seen.add_listing(DEV, [5])  # nothing of the refused listing was kept
    assert seen.repeated() == {}


def test_spans_far_apart_and_overlapping_are_both_searched():
    seen = _Seen()
    assert seen.add_listing(DEV, [1000, 1001, 1002])
    assert seen.add_listing(DEV, [5, 900])  # its span holds no inode of the first
    assert seen.add_listing(DEV, [7000, 1500])  # overlaps the first's span...
    assert seen.add_listing(DEV, [2000, 7000 - 1, 1001])  # ... and this one's, repeating
    seen.add((DEV, 901), "/between")  # inside a span, not in its listing
    seen.add((DEV, 6), "/inside")
    seen.add((DEV, 5), "/again")
    seen.add((DEV, 99999), "/beyond")
    assert seen.repeated() == {DEV: frozenset({1001, 5})}


def test_matches_a_plain_model_on_random_sequences():
    """Whatever the order of names, listings and watches: a listing is taken exactly when
    its inodes are distinct, none was met one at a time and none is watched; a suspect
    in it is noted by name; and ``repeated`` names exactly the inodes noted more than
    once."""
    rng = random.Random(20261202)
    for trial in range(300):
        spread = rng.choice((30, 400, 10**6))
        suspects = {rng.randrange(spread) for _ in range(rng.randrange(3))}
        seen = _Seen({DEV: frozenset(suspects)} if suspects else None)
        single: dict[int, str] = {}
        watched: set[int] = set()
        noted: list[int] = []
        for step in range(40):
            kind = rng.random()
            if kind < 0.2:
                ino = rng.randrange(spread)
                if ino not in single:  # the walk asks before noting: once each
                    seen.add((DEV, ino), f"/one/{step}")
                    single[ino] = f"/one/{step}"
                    noted.append(ino)
            elif kind < 0.3:
                ino = rng.randrange(spread)
                seen.watch((DEV, ino))
                watched.add(ino)
            else:
                low = rng.randrange(spread)
                inodes = [min(spread - 1, low + rng.randrange(20))
                          for _ in range(rng.randrange(1, 6))]
                names = [f"n{k}" for k in range(len(inodes))]
                taken = (len(set(inodes)) == len(inodes)
                         and not (single.keys() | watched) & set(inodes))
                assert seen.add_listing(DEV, inodes, f"/l{step}/", names) == taken, (trial, step)
                if taken:
                    noted.extend(inodes)
                    for name, ino in zip(names, inodes, strict=True):
                        if ino in suspects:
                            single[ino] = f"/l{step}/{name}"
            for ino in suspects | set(single):
                assert seen.get((DEV, ino)) == single.get(ino), (trial, step)
        twice = frozenset(i for i in set(noted) if noted.count(i) > 1)
        assert seen.repeated() == ({DEV: twice} if twice else {}), trial
