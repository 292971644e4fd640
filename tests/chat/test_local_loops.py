"""When a greedy answer counts as looping (no model needed)."""

from __future__ import annotations

import pytest

from ragas_boot.chat.local.decoders import LOOP_MIN_TOKENS, looping


@pytest.mark.parametrize(
    ("tokens", "loops"),
    [
        ([], False),
        ([1, 2, 3, 4, 5, 6], False),
        # a 6-token span repeated: twice is 12 tokens, under the minimum; three times is 18
        ([9, 9] + [1, 2, 3, 4, 5, 6] * 2, False),
        ([9, 9] + [1, 2, 3, 4, 5, 6] * 3, True),
        # an 8-token span twice is 16 tokens: enough
        ([7] + list(range(8)) * 2, True),
        # a 32-token span twice (the longest span watched)
        (list(range(32)) * 2, True),
        (list(range(33)) * 2, False),
        # short spans need more repeats: "a b c" (3 tokens) at 6, a 2-token one (as "0, " in
        # an array of zeros: a legitimate answer that stop-loops: false leaves alone) at 8
        ([0, 1] * 7, False),
        ([0, 1] * 8, True),
        ([5, 6, 7] * 5, False),
        ([5, 6, 7] * 6, True),
        # a repeat that is not at the end does not count
        ([1, 2, 3, 4, 5, 6, 7, 8] * 2 + [99], False),
    ],
)
def test_a_loop_is_a_span_repeated_back_to_back_at_the_end(tokens, loops):
    assert looping(tokens) is loops


def test_the_minimum_is_what_the_settings_say():
    assert LOOP_MIN_TOKENS == 16


def test_the_json_grammar_keeps_control_characters_out_of_strings():
    pytest.importorskip("llama_cpp", reason="needs the [local] extra")
    from llama_cpp.llama_grammar import LlamaGrammar

    from ragas_boot.chat.local.engine import json_grammar

    schema = '{"type": "object", "properties": {"m": {"type": "string", "maxLength": 4}}}'
    gbnf = json_grammar(schema)
    char = next(line for line in gbnf.splitlines() if line.startswith("char ::="))
    assert char.startswith('char ::= [^"\\\\\\x7F\\x00-\\x1F]')  # no raw newline, tab, ...
    LlamaGrammar.from_string(gbnf, verbose=False)  # still a grammar llama.cpp reads
