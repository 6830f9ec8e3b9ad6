"""Engines' names for rules: vLLM's rejection_sample_method values read as the rules they run, every rule's engine
setting said once in the registry (the switch's help and --help read it)."""

import pytest

from specviz.core import VerificationError, rule
from specviz.core.verification import ALIASES, aliases, check_verification, playable_help


@pytest.mark.parametrize("alias, canonical", [("strict", "exact-match"), ("probabilistic", "token"),
                                              ("block", "block")])
def test_vllm_names_read_as_the_rule_each_runs(alias, canonical):
    assert rule(alias).name == canonical
    assert rule(alias) is rule(canonical)


def test_aliases_are_listed_and_refusals_name_them():
    assert aliases() == ALIASES == {"strict": "exact-match", "probabilistic": "token"}
    with pytest.raises(VerificationError, match=r"'strict' \(exact-match\), 'probabilistic' \(token\)"):
        rule("stricter")
    assert check_verification("probabilistic") == "token"


@pytest.mark.parametrize("name, setting", [
    ("token", 'vLLM MRv2 rejection_sample_method="probabilistic"'),
    ("block", 'vLLM MRv2 rejection_sample_method="block"'),
    ("exact-match", 'vLLM MRv2 rejection_sample_method="strict" (its default); mlx-lm'),
    ("ensemble:0.5", "transformers assistant_ensemble_weight=0.5"),
    ("threshold:0.5,0.8,2", "SGLang --speculative-accept-threshold-single 0.5 --speculative-accept-threshold-acc 0.8"),
    ("typical:0.09", "Medusa posterior_threshold=0.09, posterior_alpha=0.3, fast=True"),
    ("traversal:2", "no engine ships it (Weng et al. 2025)")])
def test_each_rule_names_its_engine_setting(name, setting):
    assert rule(name).engine_setting == setting


def test_help_lists_every_playable_form_with_its_engine_and_the_aliases():
    text = playable_help()
    for piece in ('token (tokenwise; vLLM MRv2 rejection_sample_method="probabilistic")', "traversal:K",
                  "traversal-distinct:K", "typical:EPS[,DELTA] (Medusa posterior_threshold=EPS",
                  "strict = exact-match, probabilistic = token"):
        assert piece in text
