#pragma once
// The one style sheet of memtopo's HTML pages (the discovery report, a study's report): inline,
// so that a page opens on an air-gapped machine.
namespace memtopo {

inline constexpr const char* kHtmlStyle = R"(
body { font-family: sans-serif; margin: 1.5em auto; padding: 0 1em; max-width: 1240px; color: #222; }
svg { max-width: 100%; height: auto; }
.scroll { overflow-x: auto; max-width: 100%; }
h1 { font-size: 1.5em; } h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; }
.banner { background: #fff3cd; border: 1px solid #e0b000; padding: 0.5em 0.8em; font-weight: bold; }
dl.facts { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dl.facts dt { font-weight: bold; }
table { border-collapse: collapse; font-size: 0.9em; }
table.compact td, table.compact th { padding: 0.15em 0.5em; white-space: nowrap; }
table.compact td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.compact td.low { color: #b00000; } table.compact td.inconclusive { color: #8a5a00; font-style: italic; }
p.aside { margin: 0.2em 0; font-size: 0.85em; color: #444; }
ol.notes { font-size: 0.85em; color: #333; }
nav#contents ul ul, nav ul ul { columns: 2 22em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.5em; vertical-align: top; text-align: left; }
th { background: #f4f4f4; }
td.value { min-width: 6em; max-width: 16em; overflow-wrap: anywhere; }
td.confidence { white-space: nowrap; }
td.spread { min-width: 16em; max-width: 20em; font-size: 0.85em; }
tr.low td.value, tr.low td.confidence { color: #b00000; font-weight: bold; }
td.value.low { color: #b00000; font-weight: bold; } td.inconclusive { color: #8a5a00; font-style: italic; }
table.matrix td { text-align: right; }
td.what { min-width: 24em; } tr.low td.what { color: #b00000; }
tr.inconclusive td.value, tr.bound td.value { color: #8a5a00; font-style: italic; }
tr.api td.value { color: #555; }
.mark { display: inline-block; min-width: 1em; font-weight: bold; }
details pre { max-height: 24em; overflow: auto; background: #f8f8f8; font-size: 0.85em; }
figure { margin: 1.5em 0; } figcaption { font-size: 0.9em; color: #444; max-width: 60em; }
figure.map svg { width: 100%; max-width: 1240px; }
h3 { font-size: 1.1em; margin: 1.2em 0 0.3em; }
pre.console { font-size: 0.8em; overflow-x: auto; background: #f8f8f8; padding: 0.5em; }
)";

}  // namespace memtopo
