"""Figures of the exactness lab: exact block law against the target's, Monte Carlo histograms with
binomial error bars, and the distances the float verifier and the injected engine bugs cause."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from fractions import Fraction

import numpy as np
import plotly.graph_objects as go

from .. import formats
from ..lab.float_verifier import CRASH, EngineComparison
from ..lab.montecarlo import Fit
from ..theory import ExactnessReport
from . import style


def _frac(value: Fraction) -> str:
    return formats.fit(value, 30, 10)


def short(value: Fraction | int, width: int = 14) -> str:
    """A table cell that fits a narrow column: the exact fraction when short, else ≈ 4 significant digits."""
    return formats.fit(value, width)


# ------------------------------------------------------------------------------------------------
# number cells: the one place the lab and Theory tables format exact values (to be replaced by
# specviz.formats when it lands): a short fraction as it is, a long one as a decimal, the other
# form always on hover (an HTML title attribute)
# ------------------------------------------------------------------------------------------------

SHORT_FRACTION = 8  # "1150/729" is read as fast as 1.578; "4791683/1382976" is not
_TITLE_LIMIT = 80  # characters of an exact fraction in a hover; longer ones give their digit counts


def decimal_text(value: Fraction | int) -> str:
    """4 significant digits, trailing zeros kept (8388609/16777216 is 0.5000, never a round-looking 0.5)."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return f"{float(value):#.4g}".rstrip(".")


def fraction_text(value: Fraction | int) -> str:
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def number_text(value: Fraction | int) -> str:
    """A table cell: the exact fraction when it is short (SHORT_FRACTION characters), else a decimal."""
    exact = fraction_text(value)
    return exact if len(exact) <= SHORT_FRACTION else decimal_text(value)


def number_title(value: Fraction | int) -> str:
    """The hover of a cell: the other form (the decimal of a short fraction, the exact value of a decimal)."""
    exact = fraction_text(value)
    if Fraction(value).denominator == 1:
        return "exact"
    if len(exact) <= SHORT_FRACTION:
        return f"≈ {decimal_text(value)}"
    if len(exact) > _TITLE_LIMIT:
        value = Fraction(value)
        return (f"exact: a fraction of {len(str(abs(value.numerator)))} over "
                f"{len(str(value.denominator))} digits")
    return f"exact: {exact}"


def number_html(value: Fraction | int, decimal: bool = False) -> str:
    """A number for an HTML table: its cell text with the other form on hover (dotted underline); a whole
    number is exact as it stands and has neither. ``decimal``: a decimal even when the fraction is short."""
    value = Fraction(value)
    if value.denominator == 1:
        return html.escape(number_text(value))
    text = decimal_text(value) if decimal else number_text(value)
    title = f"exact: {fraction_text(value)}" if decimal and len(fraction_text(value)) <= _TITLE_LIMIT \
        else number_title(value)
    return (f"<span title='{html.escape(title, quote=True)}' "
            f"style='text-decoration: underline dotted #888'>{html.escape(text)}</span>")


def column_texts(values: Sequence[Fraction | int]) -> list[str]:
    """The cell texts of one column of numbers as ``html_table`` writes them: all decimals when one fraction is
    long, else each short fraction as it is, so that a chart beside the table shows the same value for each."""
    decimal = any(len(fraction_text(v)) > SHORT_FRACTION for v in values)
    return [decimal_text(v) if decimal else number_text(v) for v in values]


def _is_number(value: object) -> bool:
    return isinstance(value, (Fraction, int)) and not isinstance(value, bool)


def _decimal_columns(rows: Sequence[Mapping[str, object]], columns: list[str]) -> set[str]:
    """Columns where some value needs a decimal: the whole column is then decimals, so it reads as one scale."""
    return {c for c in columns if any(_is_number(r.get(c)) and len(fraction_text(r.get(c))) > SHORT_FRACTION
                                      for r in rows)}


def html_table(rows: Sequence[Mapping[str, object]], *, max_height: int | None = None) -> str:
    """Rows of {column: value} as a plain HTML table: Fractions and ints as number cells (exact on hover; a
    column with one long fraction is all decimals), None as a dash, anything else as escaped text. Scrolls
    inside ``max_height`` pixels when given."""
    if not rows:
        return ""
    columns = list(rows[0])
    decimals = _decimal_columns(rows, columns)

    def cell(value: object, column: str) -> str:
        if value is None:
            return "–"
        if _is_number(value):
            return number_html(value, column in decimals)
        return html.escape(str(value))

    head = "".join(f"<th style='text-align:left'>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(f"<td>{cell(r.get(c), c)}</td>" for c in columns) + "</tr>" for r in rows)
    style_attr = f"max-height:{max_height}px;overflow-y:auto;" if max_height else ""
    return (f"<div class='specviz-table' style='{style_attr}overflow-x:auto'><table style='width:100%;margin:0'>"
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>")


# the verifier variants as a reader names them (the code names stay in the library)
PLAIN_NAMES: dict[str, str] = {
    "exact": "exact verifier",
    "float32": "float32 verifier, no bug",
    "unprocessed_q": "unprocessed q (after a draft top-k)",
    "greedy": "greedy acceptance",
    "residual_from_p": "residual from p",
    "skip_bonus": "skipped bonus",
}


def plain_name(name: str) -> str:
    return PLAIN_NAMES.get(name, name.replace("_", " "))


def decimal(value: Fraction | int) -> str:
    """One number format for a results table: 0 exactly, else 4 significant digits (exact values on demand)."""
    return formats.significant(value)


def results_rows(results: Mapping[str, EngineComparison], exact: bool = False) -> list[dict[str, str]]:
    """The float-verifier table: one row per verifier with plain names; decimals, or exact fractions."""
    cell = (lambda v: str(Fraction(v))) if exact else decimal
    first = next(iter(results.values()))
    rows = [{"verifier": plain_name("exact"), "TV to target law": "0", "TV to exact blocks": "0",
             "P(NaN residual)": "0", "tokens per round": cell(first.exact_tokens)}]
    rows += [{"verifier": plain_name(name), "TV to target law": cell(r.tv_sequences),
              "TV to exact blocks": cell(r.tv_blocks), "P(NaN residual)": cell(r.crash),
              "tokens per round": cell(r.engine_tokens)} for name, r in results.items()]
    return rows


def deviation_groups(deviations: Sequence, labels: Sequence[str], limit: int = 30) -> list[tuple[str, list[dict]]]:
    """The first ``limit`` deviations as table rows, grouped by their reason (one heading per reason instead
    of a wide "why" column); each row keeps position, prefix, drafted token, exact vs engine value, weight."""
    groups: dict[str, list[dict]] = {}
    for d in deviations[:limit]:
        groups.setdefault(d.reason, []).append({
            "position": d.position, "after": token_text(d.context, [style.token_label(v) for v in labels]),
            "draft token": getattr(d, "stage", "residual") if d.token is None else style.token_label(labels[d.token]),
            "exact": d.exact, "engine": d.engine, "weight": f"{float(d.weight):.3g}"})
    return list(groups.items())


def token_text(tokens: Sequence[int], labels: Sequence[str]) -> str:
    return " ".join("NaN!" if t == CRASH else labels[t] for t in tokens) or "∅"


def sequence_comparison(report: ExactnessReport, labels: Sequence[str], top: int = 10, *,
                        presenter: bool = False, rule_label: str = "tokenwise") -> go.Figure:
    """The ``top`` most probable (depth+1)-token sequences as horizontal bars (readable labels):
    speculative (one round of the rule named ``rule_label``, completed by the target) vs target. The rest are
    summed in the subtitle; the page's table lists every sequence."""
    ranked = sorted(report.sequences, key=lambda r: -r.target)
    rows, rest = ranked[:top], ranked[top:]
    y = [token_text(r.tokens, style.token_labels(labels)) for r in rows]  # escaped: plotly reads its HTML subset
    fig = go.Figure()
    fig.add_bar(y=y, x=[float(r.speculative) for r in rows], orientation="h", name="one round + target completion",
                marker=style.bar_marker("accepted"),
                customdata=[[_frac(r.speculative), _frac(r.difference)] for r in rows],
                hovertemplate="%{y}: %{customdata[0]} (difference %{customdata[1]})<extra></extra>")
    fig.add_bar(y=y, x=[float(r.target) for r in rows], orientation="h", name="target autoregressive",
                marker=style.bar_marker("p"), customdata=[_frac(r.target) for r in rows],
                hovertemplate="%{y}: %{customdata}<extra></extra>")
    title = (f"One {rule_label} round's law vs the target's: max |difference| = "
             f"{_frac(report.max_abs_difference)}")
    if rest:
        others = sum((r.target for r in rest), Fraction(0))
        title += (f"<br><sup>the {len(rows)} likeliest of {len(ranked):,} sequences; the other {len(rest):,} "
                  f"(mass {float(others):.3f}) follow in the table below, likeliest first</sup>")
    size = style.font_size(presenter)
    height = style.title_space(title, presenter) + round(size * 2.6) * len(rows) + 3 * size + 60
    return style.apply_layout(
        fig, title=title, presenter=presenter, height=height, barmode="group", bargap=0.25,
        xaxis={"title": {"text": "probability"}, "rangemode": "tozero"},
        yaxis={"type": "category", "autorange": "reversed", "title": {"text": ""}, "ticklabelstandoff": 8})


def histogram(fit: Fit, title: str, *, presenter: bool = False) -> go.Figure:
    """Empirical frequencies against exact probabilities, with ±1.96σ binomial error bars."""
    exact = np.array([float(p) for p in fit.exact])
    x = style.token_labels(fit.labels)  # tokens as a room reads them, escaped for plotly
    fig = go.Figure()
    fig.add_bar(x=x, y=fit.frequencies, name=f"measured ({fit.rounds:,} rounds)",
                marker=style.bar_marker("empirical"),
                error_y={"type": "data", "array": fit.error_bars(), "visible": True, "thickness": 2,
                         "color": style.OKABE_ITO["black"]},
                customdata=np.stack([fit.counts, fit.error_bars()], axis=1),
                hovertemplate="%{x}: %{y:.5f} (%{customdata[0]} rounds, ±%{customdata[1]:.5f})<extra></extra>")
    fig.add_scatter(x=x, y=exact, mode="markers", name="exact",
                    marker={"symbol": "line-ew-open", "size": 36, "color": style.OKABE_ITO["blue"],
                            "line": {"width": 4, "color": style.OKABE_ITO["blue"]}},
                    customdata=[_frac(p) for p in fit.exact], hovertemplate="%{x}: exact %{customdata}<extra></extra>")
    fig.update_layout(yaxis_title="frequency")
    sub = f"TV = {fit.total_variation:.5f}, χ² = {fit.chi2:.2f} (dof {fit.dof}), p-value = {fit.p_value:.3f}"
    return style.apply_layout(fig, title=f"{title}<br><sup>{sub}</sup>", presenter=presenter)


def engine_distances(results: Mapping[str, EngineComparison], *, presenter: bool = False) -> go.Figure:
    """TV distance from the target's law (and from the exact verifier's block law) for each verifier variant,
    as horizontal bars so that each value label has room beside its own bar.

    Exact zeros cannot sit on a log axis: they are drawn at the floor and labelled "0 (exact)".
    """
    names = [plain_name("exact"), *(plain_name(name) for name in results)]
    seq = [Fraction(0)] + [r.tv_sequences for r in results.values()]
    blk = [Fraction(0)] + [r.tv_blocks for r in results.values()]
    positive = [float(v) for v in seq + blk if v > 0]
    floor = min(positive) / 10 if positive else 1e-12
    top = max(positive) if positive else 1.0
    size = style.font_size(presenter)
    fig = go.Figure()
    for label, values, cue in (("TV to the target's law (correctness)", seq, "residual"),
                               ("TV to the exact verifier's blocks", blk, "q")):
        fig.add_bar(y=names, x=[float(v) if v > 0 else floor for v in values], orientation="h", name=label,
                    marker=style.bar_marker(cue),
                    text=["0 (exact)" if v == 0 else f"{float(v):.3g}" for v in values], textposition="outside",
                    textfont={"size": size - 2}, constraintext="none", cliponaxis=False,
                    customdata=[_frac(v) for v in values], hovertemplate="%{y}: %{customdata}<extra></extra>")
    # log axis range in decades: from just under the floor to room for the largest value's label
    x_range = [float(np.log10(floor)) - 0.3, float(np.log10(top)) + 1.2]
    height = style.title_space("x", presenter) + round(size * 3.4) * len(names) + 4 * size + 60
    return style.apply_layout(
        fig, title="How far each verifier is from exact", presenter=presenter, height=height, barmode="group",
        bargap=0.3, xaxis={"type": "log", "range": x_range, "exponentformat": "power",
               "title": {"text": "total variation distance (log scale)"}},
        yaxis={"type": "category", "autorange": "reversed", "title": {"text": ""}, "ticklabelstandoff": 8})
