#!/usr/bin/env python3
"""scripts/summaries/summarise-repeats' verdicts on hand-made runs: identical, within spread, DIFFERS,
FLIPS, inconclusive, tables judged row by row against each row's own spread, and why a DIFFERS
differs."""
import importlib.machinery
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
summarise = importlib.machinery.SourceFileLoader(
    "summarise_repeats", os.path.join(HERE, "..", "..", "scripts", "summaries", "summarise-repeats")).load_module()


def prop(value, p5=None, p95=None, inconclusive=False):
    out = {"value": value, "source": "measured"}
    if p5 is not None:
        out["spread"] = {"p5": p5, "p95": p95}
    if inconclusive:
        out["inconclusive"] = True
    return out


def row(cycles, p5, p95, data="l2"):
    return {"data": data, "cycles": cycles, "p5_cycles": p5, "p95_cycles": p95}


class LowConfidence(unittest.TestCase):
    def test_values_below_one_half_are_marked_as_the_console_marks_them(self):
        low = dict(prop(15), confidence=0.38)
        self.assertEqual(summarise.shown(low), "~15")
        self.assertEqual(summarise.shown(dict(prop(16), confidence=0.5)), "16")
        self.assertEqual(summarise.shown(dict(prop(None, inconclusive=True), confidence=0.1)), "(null?)")
        self.assertEqual(summarise.marked_runs([dict(prop(16), confidence=0.9), low, None]), [2])
        # The verdict itself does not change: a low-confidence value that differs still differs.
        self.assertEqual(summarise.verdict([dict(prop(16), confidence=0.9), low]), "DIFFERS")


class Verdicts(unittest.TestCase):
    def test_scalars(self):
        self.assertEqual(summarise.verdict([prop(4), prop(4)]), "identical")
        self.assertEqual(summarise.verdict([prop(10.0, 9, 11), prop(11.5, 10, 12)]), "within spread")
        self.assertEqual(summarise.verdict([prop(10.0, 9.9, 10.1), prop(11.0, 10.9, 11.1)]), "DIFFERS")
        self.assertEqual(summarise.verdict([prop(4), prop(None, inconclusive=True)]), "FLIPS")
        self.assertEqual(summarise.verdict([prop(None, inconclusive=True)] * 2), "inconclusive")

    def test_table_rows_within_their_own_spread(self):
        first = prop([row(272, 251, 295), {"data": "l1", "reachable": False}])
        second = prop([row(276, 249, 298), {"data": "l1", "reachable": False}])
        self.assertEqual(summarise.verdict([first, second]), "within spread")

    def test_table_row_beyond_its_spread_differs(self):
        first = prop([row(302, 299, 304.5)])
        second = prop([row(338.5, 336, 341)])
        self.assertEqual(summarise.verdict([first, second]), "DIFFERS")

    def test_table_rows_with_other_labels_or_no_spread_differ(self):
        self.assertEqual(summarise.verdict([prop([row(272, 251, 295)]),
                                            prop([row(272, 251, 295, data="dram")])]), "DIFFERS")
        carveout = [prop([{"l1_bytes": 188416, "reserved_shared_bytes": 57084}]),
                    prop([{"l1_bytes": 188928, "reserved_shared_bytes": 57084}])]
        self.assertEqual(summarise.verdict(carveout), "DIFFERS")
        self.assertEqual(summarise.verdict([prop([row(1, 0, 2)]), prop([row(1, 0, 2)] * 2)]), "DIFFERS")

    def test_size_rows_within_their_search_resolution(self):
        def carveout(l1_bytes):
            return prop([{"l1_bytes": l1_bytes, "resolution_bytes": 128, "reserved_shared_bytes": 114168}])
        self.assertEqual(summarise.verdict([carveout(119296), carveout(119424)]), "within spread")
        self.assertEqual(summarise.verdict([carveout(119296), carveout(119552)]), "DIFFERS")

    def test_a_rows_reason_in_words_is_no_label(self):
        def unreachable(why):
            return prop([{"data": "l1", "reachable": False, "why": why}])
        self.assertEqual(summarise.verdict([unreachable("4096 lines do not fit"),
                                            unreachable("3944 lines do not fit")]), "within spread")
        reachable = prop([{"data": "l1", "reachable": True, "why": "4096 lines"}])
        self.assertEqual(summarise.verdict([unreachable("4096 lines"), reachable]), "DIFFERS")


class WhyItDiffers(unittest.TestCase):
    def test_a_number_gives_its_range_and_the_widest_spread(self):
        why = summarise.why_differs([prop(10.0, 9.9, 10.1), prop(11.0, 10.9, 11.3)])
        self.assertEqual(why, "10 to 11, beyond the widest spread 0.4")

    def test_a_table_names_its_first_row_beyond_its_own_spread(self):
        def tma(p50, p5, p95, tile):
            return {"method": "plain_loads", "tile_bytes": tile, "p50": p50,
                    "spread": {"p5": p5, "p95": p95}}
        first = prop([tma(1.0, 0.9, 1.1, 1024), tma(3.85, 3.82, 3.87, 65536)])
        second = prop([tma(1.05, 1.0, 1.1, 1024), tma(3.79, 3.78, 3.83, 65536)])
        self.assertEqual(summarise.verdict([first, second]), "DIFFERS")
        self.assertEqual(summarise.why_differs([first, second]),
                         "row 2 (method plain_loads, tile_bytes 65536): p50 3.79 to 3.85, "
                         "beyond its widest spread 0.05")
        self.assertEqual(summarise.why_differs([prop([row(1, 0, 2)]), prop([row(1, 0, 2)] * 2)]),
                         "rows per run: 1, 2")
        self.assertEqual(summarise.why_differs([prop([24, 8]), prop([8])]),
                         "the lists differ (lengths 2, 1)")
        self.assertIsNone(summarise.table_difference([first["value"], first["value"]]))


class GzipRuns(unittest.TestCase):
    """docs/results keeps runs gzip-compressed: a .gz path reads as its JSON."""

    def test_a_gzipped_run_is_judged_as_its_json(self):
        import contextlib
        import gzip
        import io
        import json
        import tempfile
        run = {"elements": [{"id": "l1", "size": prop(1024)}]}
        with tempfile.TemporaryDirectory() as directory:
            plain = os.path.join(directory, "a.json")
            packed = os.path.join(directory, "b.json.gz")
            with open(plain, "w", encoding="utf-8") as handle:
                json.dump(run, handle)
            with gzip.open(packed, "wt", encoding="utf-8") as handle:
                json.dump(run, handle)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                self.assertEqual(summarise.main([plain, packed]), 0)
        self.assertIn("| l1.size | 1024 | 1024 | identical |", out.getvalue())


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
