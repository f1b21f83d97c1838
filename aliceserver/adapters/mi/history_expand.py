"""readline's history expansion (histexpand.c's history_expand), as gdb runs it on a line
typed at a terminal under `set history expansion on`: `!!`, `!N`, `!-N`, `!STRING`,
`!?STRING?`, `!#`, the word designators (`:0`, `:N`, `^`, `$`, `*`, `%`, `X-Y`, `X*`,
`X-`), the modifiers (`:h`, `:t`, `:r`, `:e`, `:p`, `:q`, `:x`, `:s/OLD/NEW/`, `:&`,
`:g`, `:a`, `:G`) and `^OLD^NEW^`. gdb's settings of readline's: `!` after a blank, `=`
or the line's end is no expansion, and quotes do not stop one (a backslash does).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

_NO_EXPAND = " \t\n\r="  # history_no_expand_chars
_EVENT_DELIMITERS = "^$*%-"  # history_event_delimiter_chars
_WORD_DELIMITERS = " \t\n;&()|<>"  # history_word_delimiters
_QUOTES = "\"'`"
_SLASHIFY_IN_QUOTES = "\\`\"$"


class ExpansionError(Exception):
    """readline's hist_error text (`!foo: event not found`)."""


@dataclass
class ExpansionState:
    """What readline keeps from one expansion to the next."""

    search_string: str | None = None
    search_match: str | None = None
    subst_lhs: str | None = None
    subst_rhs: str | None = None


def history_expand(line: str, history: list[str], base: int, state: ExpansionState) -> tuple[int, str]:
    """(0: nothing expanded, 1: expanded, 2: `:p`, print only; the line); ExpansionError.
    `history`: the lines before this one, the first numbered `base`."""
    string = f"!!:s{line}" if line.startswith("^") else line
    if not line.startswith("^"):
        at = _first_expansion(string)
        if at is None:
            return 0, line
    result = ""
    modified = printing = False
    quoted = dquote = squote = False
    i = 0
    while i < len(string):
        char = string[i]
        if quoted:
            quoted = False
            result += char
        elif char == "\\":
            quoted = True
            result += char
        elif char == '"':
            dquote = not dquote
            result += char
        elif char == "'" and not dquote:  # quotes only end an event's search string here
            squote = not squote
            result += char
        elif char == "!":
            follow = string[i + 1] if i + 1 < len(string) else ""
            if not follow or follow in _NO_EXPAND or (dquote and follow == '"'):
                result += char
            else:
                quote = "'" if squote else '"' if dquote else ""
                end, text, only_print = _expand_one(string, i, history, base, state, result, quote)
                modified = True
                result += text
                printing = printing or only_print
                i = end
        else:
            result += char
        i += 1
    if printing:
        return 2, result
    return (1 if modified else 0), result


def _first_expansion(string: str) -> int | None:
    for i, char in enumerate(string):
        follow = string[i + 1] if i + 1 < len(string) else ""
        if char == "!" and follow and follow not in _NO_EXPAND:
            return i
    return None


def _error(string: str, start: int, current: int, message: str) -> ExpansionError:
    return ExpansionError(f"{string[start:current]}: {message}")


def _entry(history: list[str], base: int, which: int) -> str | None:
    index = which - base
    return history[index] if 0 <= index < len(history) else None


def _event(
    string: str, i: int, history: list[str], base: int, state: ExpansionState, quote: str
) -> tuple[str | None, int]:
    """readline's get_history_event at the `!` at `i`: the line and where its spec ends."""
    i += 1
    if string[i : i + 1] == "!":
        return (history[-1] if history else None), i + 1
    sign = 1
    if string[i : i + 1] == "-" and string[i + 1 : i + 2].isdigit():
        sign, i = -1, i + 1
    if string[i : i + 1].isdigit():
        start = i
        while i < len(string) and string[i].isdigit():
            i += 1
        which = int(string[start:i])
        if sign < 0:
            which = len(history) + base - which
        return _entry(history, base, which), i
    substring = string[i : i + 1] == "?"
    if substring:
        i += 1
    start = i
    while i < len(string):
        char = string[i]
        if char == "\n" or (substring and char == "?"):
            break
        if not substring and (char in " \t:" or (i > start and char == "-") or char == quote
                              or (char != "-" and char in _EVENT_DELIMITERS)):  # fmt: skip
            break
        i += 1
    wanted = string[start:i]
    if substring and string[i : i + 1] == "?":
        i += 1
    if not wanted and substring:
        if state.search_string is None:
            return None, i
        wanted = state.search_string
    if not wanted:  # readline's history_search finds no empty string
        return None, i
    for line in reversed(history):
        at = line.find(wanted) if substring else (0 if line.startswith(wanted) else -1)
        if at >= 0:
            if substring:
                state.search_string, state.search_match = wanted, _word_at(line, at)
            return line, i
    return None, i


def _expand_one(
    string: str, start: int, history: list[str], base: int, state: ExpansionState, so_far: str, quote: str
) -> tuple[int, str, bool]:
    """readline's history_expand_internal: (the index of the spec's last character, the
    text for it, whether `:p` asked to print only)."""
    i = start
    follow = string[i + 1 : i + 2]
    if follow and follow in ":$*%^":
        event: str | None = history[-1] if history else None
        i += 1
    elif follow == "#":
        event, i = so_far, i + 2
    else:
        event, i = _event(string, i, history, base, state, quote)
    if event is None:
        raise _error(string, start, i, "event not found")
    spec_start = i
    found, i = _word_specifier(string, event, i, state)
    if found is None:
        text = event
    elif isinstance(found, str):
        text = found
    else:
        raise _error(string, spec_start, i, "bad word specifier")
    print_only = False
    quoting = ""
    spec_start = i
    while string[i : i + 1] == ":":
        char = string[i + 1 : i + 2]
        globally = bywords = False
        if char in ("g", "a"):
            globally, i = True, i + 1
            char = string[i + 1 : i + 2]
        elif char == "G":
            bywords, i = True, i + 1
            char = string[i + 1 : i + 2]
        if char in ("q", "x"):
            quoting = char
        elif char == "p":
            print_only = True
        elif char == "t":
            text = text[text.rfind("/") + 1 :] if "/" in text else text
        elif char == "h":
            text = text[: text.rfind("/")] if "/" in text else text
        elif char == "r":
            text = text[: text.rfind(".")] if "." in text else text
        elif char == "e":
            text = text[text.rfind(".") :] if "." in text else text
        elif char in ("s", "&"):
            text, i, done = _substitute(string, i, char, text, state, globally, bywords, spec_start)
            if done:
                continue
        else:
            raise _error(string, i + 1, i + 2, "unrecognized history modifier")
        i += 2
    return i - 1, (_quoted(text, quoting) if quoting else text), print_only


def _substitute(
    string: str, i: int, char: str, text: str, state: ExpansionState, globally: bool, bywords: bool, spec_start: int
) -> tuple[str, int, bool]:
    """`:s/OLD/NEW/` and `:&`: the text, where the spec goes on, and whether `i` is there
    already (False: a `:s` with no delimiter, which is skipped as readline does)."""
    if char == "s":
        if i + 2 >= len(string):
            return text, i, False
        delimiter = string[i + 2]
        i += 3
        lhs, i = _pattern(string, i, delimiter, rhs=False)
        if lhs is not None:
            state.subst_lhs = lhs
        elif state.subst_lhs is None:
            state.subst_lhs = state.search_string or None
        rhs, i = _pattern(string, i, delimiter, rhs=True)
        state.subst_rhs = (rhs or "").replace("&", state.subst_lhs or "") if "&" in (rhs or "") else rhs
    else:
        i += 2
    lhs, rhs = state.subst_lhs or "", state.subst_rhs or ""
    if not lhs:
        raise _error(string, spec_start, i, "no previous substitution")
    if len(lhs) > len(text):
        raise _error(string, spec_start, i, "substitution failed")
    failed = True
    at = word_end = 0
    while at + len(lhs) <= len(text):
        if bywords and at > word_end:
            while at < len(text) and text[at] in " \t":
                at += 1
            word_end = _tokenize_word(text, at)
        if text.startswith(lhs, at):
            text = text[:at] + rhs + text[at + len(lhs) :]
            failed = False
            if globally:
                at += len(rhs)
                continue
            if bywords:
                at = word_end
                continue
            break
        at += 1
    if failed:
        raise _error(string, spec_start, i, "substitution failed")
    return text, i, True


def _pattern(string: str, i: int, delimiter: str, *, rhs: bool) -> tuple[str | None, int]:
    """readline's get_subst_pattern: up to the delimiter (a backslash quotes it)."""
    end = i
    while end < len(string) and string[end] != delimiter:
        if string[end] == "\\" and string[end + 1 : end + 2] == delimiter:
            end += 1
        end += 1
    found = None
    if end > i or rhs:
        found = string[i:end].replace("\\" + delimiter, delimiter)
    if end < len(string):
        end += 1
    return found, end


def _word_specifier(string: str, event: str, i: int, state: ExpansionState) -> tuple[str | None | bool, int]:
    """readline's get_history_word_specifier: the words (None: no specifier; False: none
    such, an error) and where the specifier ends."""
    origin = i  # where the specifier starts: no specifier leaves it there
    expecting = string[i : i + 1] == ":"
    if expecting:
        i += 1
    char = string[i : i + 1]
    if char == "%":
        return state.search_match or "", i + 1
    if char == "*":
        words = _arg_extract(1, "$", event)
        return (words if words is not None else ""), i + 1
    if char == "$":
        words = _arg_extract("$", "$", event)
        return (words if words is not None else False), i + 1
    first: int | str
    if char == "-":
        first = 0
    elif char == "^":
        first, i = 1, i + 1
    elif char.isdigit() and expecting:
        start = i
        while i < len(string) and string[i].isdigit():
            i += 1
        first = int(string[start:i])
    else:
        return None, origin
    last: int | str
    char = string[i : i + 1]
    if char in ("^", "*"):
        last, i = (1 if char == "^" else "$"), i + 1
    elif char != "-":
        last = first
    else:
        i += 1
        char = string[i : i + 1]
        if char.isdigit():
            start = i
            while i < len(string) and string[i].isdigit():
                i += 1
            last = int(string[start:i])
        elif char == "$":
            last, i = "$", i + 1
        elif char == "^":
            last, i = 1, i + 1
        else:
            last = -1
    words = None
    if last == "$" or (isinstance(last, int) and (last < 0 or isinstance(first, int) and last >= first)):
        words = _arg_extract(first, last, event)
    return (words if words is not None else False), i


def _arg_extract(first: int | str, last: int | str, line: str) -> str | None:
    """readline's history_arg_extract: words FIRST to LAST ('$': the last) of the line."""
    words = tokenize(line)
    count = len(words)
    low = count - 1 if first == "$" else int(first)
    high = count - 1 if last == "$" else int(last)
    if high < 0:
        high = count + high - 1
    high += 1
    if low >= count or high > count or low < 0 or high < 0 or low > high:
        return None
    return " ".join(words[low:high])


def _word_spans(line: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each of the line's words, shell-like (readline's history_tokenize_internal)."""
    i = 0
    while i < len(line):
        while i < len(line) and line[i] in " \t":
            i += 1
        if i >= len(line):
            break
        start = i
        i = _tokenize_word(line, start)
        if i == start:
            i += 1
            while i < len(line) and line[i] in _WORD_DELIMITERS:
                i += 1
        yield start, i


def tokenize(line: str) -> list[str]:
    """readline's history_tokenize: the line's words, shell-like."""
    return [line[start:end] for start, end in _word_spans(line)]


def _word_at(line: str, at: int) -> str | None:
    """readline's history_find_word: the word of the line holding index `at`."""
    for start, end in _word_spans(line):
        if start <= at < end or (at >= end and end >= len(line)):
            return line[start:end]
    return None


def _tokenize_word(text: str, i: int) -> int:
    """readline's history_tokenize_word: where the word starting at `i` ends."""

    def at(k: int) -> str:
        return text[k] if k < len(text) else ""

    delimiter, nest, opener = "", 0, ""
    if at(i) and at(i) in "()\n":
        return i + 1
    if at(i).isdigit():
        j = i
        while at(j).isdigit():
            j += 1
        if not at(j):
            return j
        i = j
        if at(j) not in "<>":
            return _word_body(text, i, delimiter, nest, opener)
    if at(i) and at(i) in "<>;&|":
        peek = at(i + 1)
        if peek == at(i):
            if peek == "<" and at(i + 2) in ("-", "<") and at(i + 2):
                i += 1
            return i + 2
        if peek == "&" and at(i) in "<>":
            j = i + 2
            while at(j).isdigit():
                j += 1
            return j + 1 if at(j) == "-" else j
        if (peek == ">" and at(i) == "&") or (peek == "|" and at(i) == ">"):
            return i + 2
        if peek == "(" and at(i) in "<>":
            return _word_body(text, i + 2, ")", 1, "(")
        return i + 1
    return _word_body(text, i, delimiter, nest, opener)


def _word_body(text: str, i: int, delimiter: str, nest: int, opener: str) -> int:
    if not delimiter and i < len(text) and text[i] in _QUOTES:
        delimiter, i = text[i], i + 1
    while i < len(text):
        char = text[i]
        follow = text[i + 1] if i + 1 < len(text) else ""
        if char == "\\" and follow == "\n":
            i += 2
            continue
        if char == "\\" and delimiter != "'" and (delimiter != '"' or char in _SLASHIFY_IN_QUOTES):
            i += 2
            continue
        if nest and char == opener:
            nest += 1
        elif nest and char == delimiter:
            nest -= 1
            if nest == 0:
                delimiter = ""
        elif delimiter and char == delimiter:
            delimiter = ""
        elif not nest and not delimiter and char in "<>$!@?+*" and follow == "(":
            i += 2
            delimiter, opener, nest = ")", "(", 1
            continue
        elif not delimiter and char in _WORD_DELIMITERS:
            break
        elif not delimiter and char in _QUOTES:
            delimiter = char
        i += 1
    return i


def _quoted(text: str, how: str) -> str:
    """`:q` (the whole text single-quoted) and `:x` (each word quoted), as readline's
    sh_single_quote and quote_breaks."""
    if how == "q":
        return "'" + text.replace("'", "'\\''") + "'"
    out, quoting = "'", True
    for char in text:
        if char == "'":
            out += "'\\''"
        elif quoting and char in " \t\n":
            out += "' '" if char == " " else f"'{char}'"
        else:
            out += char
    return out + "'"
