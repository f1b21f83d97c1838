"""Budgets: values cut with an ellipsis, omissions recorded, and the reply-size guard."""

from __future__ import annotations

from aliceserver.adapters.agent.budget import (
    Budget,
    Omissions,
    cut_text,
    cut_value,
    fit_reply,
    reply_size,
)


def test_cut_text_counts_what_it_cut() -> None:
    assert cut_text("short", 10) == ("short", 0)
    text, lost = cut_text("x" * 100, 10)
    assert len(text) == 10 and text.endswith("…")
    assert lost == 91


def test_cut_value_records_how_to_see_the_rest() -> None:
    omissions = Omissions()
    budget = Budget(max_string=20)
    value = cut_value("{" + "1, " * 50 + "}", budget, omissions, "local xs", "debug_variables path=xs")
    assert len(value) == 20
    reply = omissions.attach({"a": 1})
    [entry] = reply["omitted"]
    assert entry["how"] == "debug_variables path=xs"
    assert "local xs" in entry["what"]


def test_no_omissions_no_key() -> None:
    assert "omitted" not in Omissions().attach({})


def test_fit_reply_leaves_small_replies_alone() -> None:
    reply = {"a": "b", "c": [1, 2, 3]}
    assert fit_reply(reply, Budget()) is reply


def test_fit_reply_shrinks_until_it_fits_and_says_so() -> None:
    budget = Budget(max_reply=2000)
    reply = {"items": ["y" * 500 for _ in range(50)], "error": "kept"}
    fitted = fit_reply(reply, budget)
    assert reply_size(fitted) <= budget.max_reply
    assert fitted["error"] == "kept"
    assert any("over 2000 characters" in o["what"] for o in fitted["omitted"])
