"""Toy scenarios: small vocabularies whose p and q are tables of weights, fixed or Markov.

The package holds four concepts, one module each (every name is re-exported here):

* ``model``: the Scenario and its Table of weights, and ``play`` / ``play_round`` (rounds with a trace);
* ``reading``: numbers and JSON read exactly and within bounds (``weight_from_text``, ``read_json``);
* ``document``: the Scenario as a JSON document and back (``scenario_to_dict``, ``scenario_from_dict``),
  and the golden file's cases;
* ``shapes``: one entry per token in every table and mask (``check_shapes``);
* ``labels``: a token's label as a room reads it (``shown_label``: ``‘.’ period``);

with ``errors`` for ScenarioError, the refusal that names the document's field.
"""

from __future__ import annotations

from ..core import Prefix
from ..core.validation import Weight
from .document import (
    TEMPERATURE_ALLOWED,
    TOP_P_ALLOWED,
    scenario_from_dict,
    scenario_from_golden,
    scenario_to_dict,
    table_from_dict,
)
from .labels import shown_label
from .model import Round, Row, Scenario, Table, play, play_round
from .reading import (
    MAX_JSON_CHARS,
    MAX_JSON_DEPTH,
    JsonNumber,
    check_real,
    int_from_text,
    max_weight_digits,
    read_json,
    real_from_text,
    weight_from_text,
    weight_text,
)
from .reading_errors import ScenarioError, ScenarioTypeError
from .shapes import check_shapes

__all__ = [
    "MAX_JSON_CHARS", "MAX_JSON_DEPTH", "TEMPERATURE_ALLOWED", "TOP_P_ALLOWED", "JsonNumber", "Prefix", "Round",
    "Row", "Scenario", "ScenarioError", "ScenarioTypeError", "Table", "Weight", "check_real", "check_shapes",
    "int_from_text", "max_weight_digits", "play", "play_round", "read_json", "real_from_text", "scenario_from_dict",
    "scenario_from_golden", "scenario_to_dict", "shown_label", "table_from_dict", "weight_from_text", "weight_text",
]
