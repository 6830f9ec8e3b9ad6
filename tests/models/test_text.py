"""Token ids to display strings: the pieces concatenate to the decoded text; special tokens read as markers."""

from __future__ import annotations

from specviz.models.text import special_marker, token_label, token_pieces, token_text
from specviz.models.tiny import word_tokenizer


def test_pieces_concatenate_to_the_decode_and_mark_special_tokens():
    tok = word_tokenizer(10)
    assert "".join(token_pieces(tok, [1, 2, 3])) == tok.decode([1, 2, 3])
    pieces = token_pieces(tok, [1, 9, 2])
    assert pieces[1] == "⟨end of text⟩" and "<|endoftext|>" not in "".join(pieces)
    assert pieces[0].strip() == "w1" and pieces[2].strip() == "w2"
    assert token_label(tok, 9) == special_marker(tok, 9) == "⟨end of text⟩"
    assert token_label(tok, 3) == "w3"


def test_a_json_event_text_is_the_decode_but_a_special_token_is_its_marker():
    tok = word_tokenizer(10)
    assert token_text(tok, 3) == tok.decode([3])
    assert token_text(tok, 9) == "⟨end of text⟩" and "<|" not in token_text(tok, 9)
