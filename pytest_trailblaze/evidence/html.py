"""The HTML report: one self-contained file (styles, script and screenshots inline).

It opens from a CI artifact with no server: per trail its steps, tool calls, durations,
outcome, failure text and screenshots; buttons filter trails by outcome. Traces and videos are
linked (relative to the report), not inlined: they are large and open in their own viewers.
Every text in it comes from records that were masked before they reached this module.
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Sequence
from html import escape as html_escape
from pathlib import Path

from ..core.masking import visible
from .record_format import ArtifactDict, CallDict, StepDict, TrailRecord
from .summary import outcome_counts

#: How a tool's message starts when its outcome is a model's opinion (``agent.judgement``).
JUDGEMENT = "model judgement"
#: Screenshots larger than this are linked, not inlined, to keep the report small enough to open.
MAX_INLINE_BYTES = 4 * 1024 * 1024
_ORDER = ("failed", "error", "passed", "skipped", "xfailed", "xpassed")
_ASSETS = Path(__file__).with_name("report.css"), Path(__file__).with_name("report.js")


def escape(text: object) -> str:
    """Text for the page: control characters from trail text shown (``\\x1b``), HTML escaped."""
    return html_escape(visible(str(text)))


def render(records: Sequence[TrailRecord], *, report_path: Path, title: str, meta: str) -> str:
    """The whole report page for ``records`` (already masked), to be written at ``report_path``."""
    ordered = sorted(records, key=lambda r: (_rank(r["outcome"]), r["nodeid"]))
    body = "\n".join(_trail(r, i, report_path.parent) for i, r in enumerate(ordered))
    style, script = (asset.read_text(encoding="utf-8") for asset in _ASSETS)
    return (
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)}</title><style>{style}</style></head><body>"
        f"<header><h1>{escape(title)}</h1><p class=meta>{escape(meta)}</p>{_usage(records)}"
        f"{_filters(records)}</header>"
        f"<main>{body or '<p>No trails ran.</p>'}</main><script>{script}</script></body></html>\n"
    )


def _usage(records: Sequence[TrailRecord]) -> str:
    """The run's model usage and cost, from the trails' ``llm_*`` properties (none: nothing)."""
    used = [r.get("properties") or {} for r in records]
    used = [p for p in used if "llm_calls" in p]
    if not used:
        return ""

    def total(key: str) -> int:
        return sum(int(p.get(key, 0)) for p in used)

    priced = [p for p in used if "llm_cost_usd" in p]
    cost = f"${sum(float(p['llm_cost_usd']) for p in priced):.4f}" if priced else "cost unknown"
    if priced and len(priced) < len(used):
        cost += f" ({len(used) - len(priced)} trails unpriced)"
    line = (
        f"model: {total('llm_calls')} LLM calls · {total('llm_input_tokens'):,} input tokens "
        f"({total('llm_cached_input_tokens'):,} cached) · {total('llm_output_tokens'):,} output tokens"
        f" · {cost}"
    )
    return f"<p class='meta usage'>{escape(line)}</p>"


def _trail_usage(record: TrailRecord) -> str:
    props = record.get("properties") or {}
    if "llm_calls" not in props:
        return ""
    cost = f"${float(props['llm_cost_usd']):.4f} · " if "llm_cost_usd" in props else ""
    return f"<span class=muted>{escape(cost)}{escape(str(props['llm_calls']))} LLM calls</span>"


def _rank(outcome: str) -> int:
    return _ORDER.index(outcome) if outcome in _ORDER else len(_ORDER)


def _filters(records: Sequence[TrailRecord]) -> str:
    counts = outcome_counts(records)
    buttons = [f"<button data-filter=all aria-pressed=true>all ({len(records)})</button>"]
    for outcome in sorted(counts, key=_rank):
        label = f"{escape(outcome)} ({counts[outcome]})"
        buttons.append(f"<button data-filter={escape(outcome)} aria-pressed=false>{label}</button>")
    return f"<nav aria-label='filter by outcome'>{''.join(buttons)}</nav>"


def _trail(record: TrailRecord, index: int, base: Path) -> str:
    outcome = str(record["outcome"])
    artifacts_dir = record.get("artifacts_dir")
    folder = Path(artifacts_dir) if artifacts_dir else None
    steps = "".join(_step(step, folder) for step in record.get("steps", ()))
    failure = record.get("failure")
    failure_html = f"<pre class=failure>{escape(failure)}</pre>" if failure and not _in_steps(record) else ""
    opened = " open" if outcome in ("failed", "error") else ""
    where = f"{record.get('file', '')} · {record['nodeid']}"
    return (
        f"<section class='trail {escape(outcome)}' data-outcome={escape(outcome)} id=trail-{index}>"
        f"<details{opened}><summary><span class='badge {escape(outcome)}'>{escape(outcome)}</span>"
        f"<span class=name>{escape(str(record.get('title') or record.get('name')))}</span>"
        f"<span class=muted>{escape(str(record.get('platform', '')))}</span>{_trail_usage(record)}"
        f"<span class=time>{_seconds(record.get('duration_s'))}</span></summary>"
        f"<div class=body><p class=file>{escape(where)}</p>{failure_html}"
        f"<ol class=steps>{steps}</ol>{_artifacts(record, folder, base)}</div></details></section>"
    )


def _in_steps(record: TrailRecord) -> bool:
    """True when a step already shows the failure (its error), so it is not repeated."""
    return any(s.get("error") for s in record.get("steps", ()))


def _step(step: StepDict, folder: Path | None) -> str:
    outcome = str(step["outcome"]).replace(" ", "-")
    mode = step.get("mode") if step.get("mode") not in ("replay", "planned") else ""
    calls = "".join(_call(call) for call in step.get("calls", ()))
    error = f"<pre class=error>{escape(step['error'])}</pre>" if step.get("error") else ""
    screenshot = step.get("screenshot")
    shot = _image(folder / screenshot, f"screenshot of {step['label']}") if folder and screenshot else ""
    took = _seconds(step.get("duration_s")) if outcome != "not-run" else ""
    return (
        f"<li class='step {outcome}' data-outcome={outcome}><div class=step-head>"
        f"<span class=label>{escape(step['label'])}</span><span class=text>{escape(step['text'])}</span>"
        f"<span class=mode>{escape(str(mode or ''))}</span>"
        f"<span class='badge {outcome}'>{escape(str(step['outcome']))}</span>"
        f"<span class=time>{took}</span></div>"
        f"{f'<ul class=calls>{calls}</ul>' if calls else ''}{error}{shot}</li>"
    )


def _call(call: CallDict) -> str:
    args = json.dumps(call.get("args", {}), ensure_ascii=False, default=str)
    message = call.get("message") or ""
    shown = (
        f" <span class=muted>{escape(message.splitlines()[0])}</span>"
        if message and call["outcome"] == "passed"
        else ""
    )
    judged = "<span class=judged>model judgement</span> " if message.startswith(JUDGEMENT) else ""
    return (
        f"<li class='call {escape(call['outcome'])}' style='--depth:{int(call.get('depth', 0))}'>"
        f"{judged}<code>{escape(call['name'])}</code> <code class=args>{escape(args)}</code>"
        f" <span class=time>{round(float(call.get('duration_s', 0)) * 1000)} ms</span>{shown}</li>"
    )


def _image(path: Path, alt: str) -> str:
    try:
        data = path.read_bytes()
    except OSError:
        return f"<p class=muted>{escape(alt)}: {escape(path.name)} is missing</p>"
    if len(data) > MAX_INLINE_BYTES:
        return f"<p><a href='{escape(path.as_uri())}'>{escape(alt)}</a></p>"
    mime = "image/jpeg" if path.suffix.lower() in (".jpg", ".jpeg") else "image/png"
    encoded = base64.b64encode(data).decode("ascii")
    return (
        f"<figure><img alt='{escape(alt)}' src='data:{mime};base64,{encoded}'>"
        f"<figcaption>{escape(path.name)}</figcaption></figure>"
    )


def _artifacts(record: TrailRecord, folder: Path | None, base: Path) -> str:
    """Links to the trail's evidence files, relative to the report so the folder can move whole."""
    shown = {s.get("screenshot") for s in record.get("steps", ())}
    items = []
    for artifact in record.get("artifacts", ()):
        if folder is None or artifact["path"] in shown or artifact["kind"] == "record":
            continue
        target = folder / artifact["path"]
        link = Path(os.path.relpath(target.resolve(), base.resolve())).as_posix()
        items.append(f"<li>{escape(artifact['kind'])}: {_link(artifact, link)}</li>")
    notes = [f"<li class=muted>{escape(n)}</li>" for n in record.get("notes", ())]
    if not items and not notes:
        return ""
    return f"<ul class=artifacts>{''.join(items + notes)}</ul>"


def _link(artifact: ArtifactDict, link: str) -> str:
    """A link to an evidence file; a trace says how to open it, a video plays in place."""
    anchor = f"<a href='{escape(link)}'>{escape(artifact['path'])}</a>"
    if artifact["kind"] == "trace":
        return f"{anchor} <span class=muted>(open with <code>playwright show-trace</code>)</span>"
    if artifact["kind"] == "video":
        return f"{anchor}<br><video controls preload=none width=480 src='{escape(link)}'></video>"
    return anchor


def _seconds(value: object) -> str:
    return f"{float(value):.2f} s" if isinstance(value, (int, float)) else ""
