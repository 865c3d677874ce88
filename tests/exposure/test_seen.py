"""The walk's record of file identities met so far (hardlinks are counted once)."""

from __future__ import annotations

import random

from localfs_explorer.exposure.host import _Seen

DEV = 7


def test_a_listing_of_new_inodes_is_taken_whole():
    seen = _Seen()
    assert seen.add_listing(DEV, "/a/", ["x", "y"], [1, 2])
    assert seen.inodes[DEV] == {1, 2}
    assert seen.get((DEV, 2)) == "/a/y"
    assert seen.get((DEV + 1, 2)) is None  # another device: another file


def test_a_clash_with_an_earlier_listing_takes_back_only_the_new_inodes():
    seen = _Seen()
    assert seen.add_listing(DEV, "/a/", ["x", "y"], [1, 2])
    seen.add((DEV, 3), "/b/z")
    assert not seen.add_listing(DEV, "/c/", ["p", "q", "r"], [4, 2, 5])
    assert seen.inodes[DEV] == {1, 2, 3}
    assert seen.get((DEV, 4)) is None
    assert seen.get((DEV, 2)) == "/a/y"
    # A clash with a name added one at a time keeps that name too.
    assert not seen.add_listing(DEV, "/e/", ["u", "v"], [3, 9])
    assert seen.inodes[DEV] == {1, 2, 3}
    assert seen.get((DEV, 3)) == "/b/z"


def test_an_inode_listed_twice_is_not_taken():
    seen = _Seen()
    assert not seen.add_listing(DEV, "/d/", ["s", "t"], [6, 6])
    assert seen.inodes[DEV] == set()
    assert seen.get((DEV, 6)) is None


def test_a_watched_inode_sends_its_listing_back():
    seen = _Seen()
    seen.watch((DEV, 7))
    assert not seen.add_listing(DEV, "/f/", ["w", "v"], [7, 8])
    assert seen.inodes[DEV] == set()
    assert seen.add_listing(DEV, "/g/", ["m"], [8])
    assert seen.get((DEV, 8)) == "/g/m"
    seen.add((DEV, 7), "/h/w")  # met one at a time, it is seen like any other
    assert not seen.add_listing(DEV, "/i/", ["k"], [7])
    assert seen.get((DEV, 7)) == "/h/w"


def test_names_with_a_newline_are_found_again():
    seen = _Seen()
    names = ["plain", "two\nlines", "last"]
    assert seen.add_listing(DEV, "/n/", names, [11, 12, 13])
    assert [seen.get((DEV, i)) for i in (11, 12, 13)] == ["/n/plain", "/n/two\nlines", "/n/last"]
    joined = "\n" + "\n".join(["a", "b"]) + "\n"
    assert seen.add_listing(DEV, "/j/", ["a", "b"], [21, 22], joined)
    assert seen.get((DEV, 22)) == "/j/b"


def test_an_identity_wider_than_64_bits_is_left_to_the_entry_by_entry_walk():
    seen = _Seen()
    assert not seen.add_listing(DEV, "/w/", ["a", "b"], [5, 2**64 + 5])
    assert seen.inodes[DEV] == set()
    assert seen.get((DEV, 5)) is None


def test_listings_are_found_across_many_additions():
    seen = _Seen()
    for d in range(50):
        assert seen.add_listing(DEV, f"/d{d}/", [f"f{i}" for i in range(d % 4 + 1)],
                                [d * 10 + i for i in range(d % 4 + 1)])
        if d % 7 == 0:  # looked up while listings are still being added
            assert seen.get((DEV, d * 10)) == f"/d{d}/f0"
    assert seen.get((DEV, 473)) == "/d47/f3"
    assert seen.get((DEV, 492)) is None  # /d49 holds two files only
    assert seen.get((DEV, 14)) is None  # /d1 holds two files only
    assert seen.get((DEV, 11)) == "/d1/f1"


def test_a_repeat_and_an_old_inode_in_one_listing_keep_only_the_old_one():
    seen = _Seen()
    assert seen.add_listing(DEV, "/a/", ["x"], [1])
    assert not seen.add_listing(DEV, "/b/", ["p", "q", "r", "s"], [6, 1, 6, 9])
    assert seen.inodes[DEV] == {1}
    assert seen.add_listing(DEV, "/c/", ["t", "u"], [6, 9])  # 6 and 9 are still new


def test_matches_a_plain_model_on_random_sequences():
    """Whatever the order of names, listings and watches, a listing is taken exactly when
    a plain set of everything noted says its inodes are new, distinct and unwatched."""
    rng = random.Random(20261202)
    for _ in range(200):
        seen, noted, watched = _Seen(), {}, set()
        for step in range(40):
            kind = rng.random()
            if kind < 0.2:
                ino = rng.randrange(30)
                if (DEV, ino) not in noted:
                    seen.add((DEV, ino), f"/one/{step}")
                    noted[DEV, ino] = f"/one/{step}"
                    watched.discard(ino)
            elif kind < 0.3:
                ino = rng.randrange(30)
                seen.watch((DEV, ino))
                if (DEV, ino) not in noted:
                    watched.add(ino)
            else:
                inodes = [rng.randrange(30) for _ in range(rng.randrange(1, 5))]
                names = [f"n{i}" for i in range(len(inodes))]
                fresh = (len(set(inodes)) == len(inodes) and not watched & set(inodes)
                         and not any((DEV, i) in noted for i in inodes))
                assert seen.add_listing(DEV, f"/l{step}/", names, inodes) == fresh
                if fresh:
                    for n, i in zip(names, inodes, strict=True):
                        noted[DEV, i] = f"/l{step}/{n}"
            assert seen.inodes.get(DEV, set()) == {i for _, i in noted}
            for ino in range(30):
                assert seen.get((DEV, ino)) == noted.get((DEV, ino))
