"""The text of BIF, XMLBIF and UAI network files, and the names each can hold.

A network reaches this module as plain parts: its nodes in file order, ``child -> parents``
(CPT axis order), probability tables with axes ``(child, *parents)`` and the states of
every node, named as the format allows (:func:`bif_names`, :func:`xmlbif_names`; UAI has
no names). The writers return the file's text; :func:`read_uai` reads a UAI file back
(pgmpy's BIF and XMLBIF readers read the other two), and :func:`read_bif` reads a BIF
file in the layout :func:`bif_text` writes, and nothing else (bnclf checks its BIF files
with it, next to pgmpy's reader, which is slow).

Notes
-----
The naming rules are what pgmpy's readers (``BIFReader``, ``XMLBIFReader``), pyAgrum's
(``gum.loadBN``) and Weka 3.6's ``BIFReader`` all read back unchanged, found by writing
candidate names and loading them in each:

* pyAgrum's BIF parser takes a name made of ASCII letters, digits, ``_``, ``.`` and ``-``
  that starts with a letter or ``_``, and as a state also a whole number (``2``, ``-1``);
  it refuses other characters (accented letters too), a name starting with a digit, ``.``
  or ``-`` (``2.5``, ``-inf``) and the lowercase words BIF reserves. pgmpy's BIF reader
  takes more, and matches variable names whatever their letter case.
* XMLBIF holds any text (escaped), but pyAgrum's reader drops spaces at the ends of a
  name and reads every run of spaces, tabs and line breaks as one space; Weka's looks a
  variable's table up by its name with the spaces at the ends dropped, and fails on an
  empty name (as pgmpy reads one as ``None``).
* UAI lists each table with the first variable of its scope the most significant and
  the last (for a Bayesian network, the child) the least (the UAI competition's model
  format); bnclf writes function ``i`` as the table of variable ``i``, over its parents
  in CPT axis order and then itself. pyAgrum needs function ``i`` to be variable ``i``'s,
  and reads a table over two or more parents with the first parent the least significant
  after the child, which is not the format's order: pyAgrum 3.3 reads bnclf's UAI files
  right only when no variable has more than one parent (naive Bayes). pgmpy's
  ``UAIWriter`` orders variables by cardinality and then name and writes each table with
  the child's axis the most significant, so its files read back neither in pyAgrum nor in
  pgmpy's ``UAIReader`` (whose parents come from a set); bnclf reads UAI itself
  (:func:`read_uai`).
* pyAgrum reads the numbers of BIF and UAI files in single precision (about seven
  digits), those of XMLBIF files in double precision.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import NoReturn
from xml.sax.saxutils import escape

import numpy as np

BIF_RESERVED = ("network", "variable", "probability", "property", "type", "discrete", "table", "default")
"""Words of the BIF grammar, which pyAgrum's parser does not take as names."""

_BIF_OTHER = re.compile(r"[^A-Za-z0-9_.\-]+")
_WHOLE_NUMBER = re.compile(r"-?[0-9]+")
_XML_SPACE = re.compile(r"[ \t\n\r]+")
# what XML 1.0 cannot hold: control characters other than tab, newline and carriage
# return, lone surrogates, U+FFFE and U+FFFF
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _distinct(names: list[str], fold_case: bool = False) -> list[str]:
    """``names`` made distinct in order: a name already given gets ``_2``, ``_3``, ... (the
    first that is free), compared ignoring letter case when ``fold_case``."""
    key = str.lower if fold_case else str
    out, used = [], set()
    for name in names:
        candidate, i = name, 2
        while key(candidate) in used:
            candidate, i = f"{name}_{i}", i + 1
        used.add(key(candidate))
        out.append(candidate)
    return out


def bif_name(label: Hashable, *, state: bool) -> str:
    """The BIF name of one label, before duplicates are told apart (see :func:`bif_names`)."""
    text = "".join(c for c in unicodedata.normalize("NFKD", str(label)) if not unicodedata.combining(c))
    name = _BIF_OTHER.sub("_", text)
    # a run of other characters at either end is dropped, not turned into "_"
    if name.startswith("_") and not text.startswith("_"):
        name = name[1:]
    if name.endswith("_") and not text.endswith("_"):
        name = name[:-1]
    if not name:
        return "_"
    if state and _WHOLE_NUMBER.fullmatch(name):
        return name
    if not (name[0].isalpha() or name[0] == "_") or name.lower() in BIF_RESERVED:
        name = "_" + name
    return name


def bif_names(labels: Iterable[Hashable], *, state: bool) -> list[str]:
    """The names BIF files give ``labels`` (variables, or the states of one variable), in order.

    Parameters
    ----------
    labels : iterable
        Variable names, or the state labels of one variable.
    state : bool
        Whether these are states (a whole number is then kept as it is).

    Returns
    -------
    list of str
        One distinct name per label.

    Notes
    -----
    The rule, applied to the text of each label (``str(label)``):

    1. letters lose their accents (``é`` becomes ``e``: Unicode NFKD decomposition without
       the combining marks);
    2. every run of characters other than ASCII letters, digits, ``_``, ``.`` and ``-``
       becomes one ``_``, and such a run at the start or the end is dropped;
    3. a name left empty is ``_``; a name that does not start with a letter or ``_``, or
       that is a word BIF reserves (``network``, ``variable``, ``probability``,
       ``property``, ``type``, ``discrete``, ``table``, ``default``, in any letter case),
       gets a ``_`` in front, except a state that is a whole number (``2``, ``-1``);
    4. a name already given (to a variable, ignoring letter case, as pgmpy's reader
       matches variables) gets ``_2``, ``_3``, ... (the first that is free), in order.

    So ``(-inf, 54.5]`` is ``_-inf_54.5``, ``(54.5, inf)`` is ``_54.5_inf``, ``<missing>``
    is ``missing``, the state ``2`` stays ``2`` and the variable ``2`` is ``_2``.

    Examples
    --------
    >>> bif_names(["(-inf, 54.5]", "(54.5, inf)", "<missing>"], state=True)
    ['_-inf_54.5', '_54.5_inf', 'missing']
    >>> bif_names([2, -1, 2.5, "größe", "table"], state=True)
    ['2', '-1', '_2.5', 'gro_e', '_table']
    >>> bif_names(["Age", "age", "a b", "a_b"], state=False)
    ['Age', 'age_2', 'a_b', 'a_b_2']
    """
    return _distinct([bif_name(label, state=state) for label in labels], fold_case=not state)


def xmlbif_name(label: Hashable) -> str:
    """The XMLBIF name of one label, before duplicates are told apart (see :func:`xmlbif_names`)."""
    text = _XML_FORBIDDEN.sub("_", _XML_SPACE.sub(" ", str(label)).strip(" "))
    return text or "_"


def xmlbif_names(labels: Iterable[Hashable]) -> list[str]:
    """The names XMLBIF files give ``labels`` (variables, or the states of one variable).

    Notes
    -----
    The text of each label (``str(label)``) as it is, except that every run of spaces,
    tabs and line breaks is one space and none is kept at the ends (pyAgrum reads names
    so), a character XML 1.0 cannot hold (a control character) is ``_``, an empty name is
    ``_``, and a name already given gets ``_2``, ``_3``, ... (the first that is free), in
    order. The file escapes ``&``, ``<`` and ``>``.

    Examples
    --------
    >>> xmlbif_names(["(-inf, 54.5]", "<missing>", 2, "a  b", "a b", ""])
    ['(-inf, 54.5]', '<missing>', '2', 'a b', 'a b_2', '_']
    """
    return _distinct([xmlbif_name(label) for label in labels])


def _column_tables(families: Mapping, tables: Mapping) -> dict:
    """Each table with the child's axis last (parents slowest, child fastest), its
    distributions scaled to sum to one."""
    out = {}
    for child, table in tables.items():
        table = np.asarray(table, dtype=float)
        table = table / table.sum(axis=0, keepdims=True)
        out[child] = np.moveaxis(table, 0, -1)
    return out


def _numbers(values: np.ndarray, sep: str) -> str:
    return sep.join(map(repr, np.asarray(values, dtype=float).ravel().tolist()))


def bif_text(
    nodes: Sequence[str], families: Mapping[str, Sequence[str]], tables: Mapping, states: Mapping[str, Sequence[str]]
) -> str:
    """A BIF file of the network (names already BIF names); variables in the order of ``nodes``."""
    lines = ["network bnclf {", "}"]
    for v in nodes:
        lines += ["variable " + v + " {", f"    type discrete [ {len(states[v])} ] {{ {', '.join(states[v])} }};", "}"]
    columns = _column_tables(families, tables)
    for v in nodes:
        parents = list(families[v])
        table = columns[v]
        if not parents:
            lines += [f"probability ( {v} ) {{", f"    table {_numbers(table, ', ')};", "}"]
            continue
        lines.append(f"probability ( {v} | {', '.join(parents)} ) {{")
        # one row per combination of the parents' states, the last parent varying fastest
        rows = table.reshape(-1, table.shape[-1]).tolist()
        for given, row in zip(itertools.product(*(states[p] for p in parents)), rows):
            lines.append(f"    ( {', '.join(given)} ) {', '.join(map(repr, row))};")
        lines.append("}")
    return "\n".join(lines) + "\n"


def xmlbif_text(
    nodes: Sequence[str], families: Mapping[str, Sequence[str]], tables: Mapping, states: Mapping[str, Sequence[str]]
) -> str:
    """An XMLBIF 0.3 file of the network (names already XMLBIF names), variables in the order
    of ``nodes``: Weka's ``BIFReader`` takes the last as the class.

    No ``PROPERTY`` elements (Weka 3.6 fails on an empty one) and no DTD (pyAgrum's reader
    cannot read one; Weka's validating parser then prints that the document has no grammar,
    and reads it).
    """
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<BIF VERSION="0.3">', "<NETWORK>", "<NAME>bnclf</NAME>"]
    for v in nodes:
        lines += ['<VARIABLE TYPE="nature">', f"    <NAME>{escape(v)}</NAME>"]
        lines += [f"    <OUTCOME>{escape(s)}</OUTCOME>" for s in states[v]]
        lines.append("</VARIABLE>")
    columns = _column_tables(families, tables)
    for v in nodes:
        lines += ["<DEFINITION>", f"    <FOR>{escape(v)}</FOR>"]
        lines += [f"    <GIVEN>{escape(p)}</GIVEN>" for p in families[v]]
        lines += [f"    <TABLE>{_numbers(columns[v], ' ')}</TABLE>", "</DEFINITION>"]
    lines += ["</NETWORK>", "</BIF>"]
    return "\n".join(lines) + "\n"


def uai_text(nodes: Sequence, families: Mapping, tables: Mapping, states: Mapping) -> str:
    """A UAI (``BAYES``) file of the network: variable ``i`` is ``nodes[i]`` and function ``i``
    its table, over its parents in CPT axis order and then itself, the last varying fastest."""
    position = {v: i for i, v in enumerate(nodes)}
    lines = ["BAYES", str(len(nodes)), " ".join(str(len(states[v])) for v in nodes), str(len(nodes))]
    for v in nodes:
        scope = [*families[v], v]
        lines.append(" ".join(map(str, [len(scope), *(position[u] for u in scope)])))
    lines.append("")
    columns = _column_tables(families, tables)
    for v in nodes:
        lines += [str(columns[v].size), _numbers(columns[v], " ")]
    return "\n".join(lines) + "\n"


def _floats(tokens: list[str]) -> np.ndarray | None:
    """The tokens as numbers, as ``float`` reads each; None if one is not a number."""
    try:
        return np.array(list(map(float, tokens)), dtype=float)
    except ValueError:
        return None


def read_uai(path: str | Path) -> tuple[list[str], dict, dict, dict]:
    """The network of a UAI ``BAYES`` file: ``(nodes, families, tables, states)``.

    Variables are named ``var_0``, ``var_1``, ... (as pgmpy names them) and their states
    ``0 .. r-1``; a function's last variable is the child, the others its parents; tables
    have axes ``(child, *parents)``. Each distribution must sum to one within 0.01 (pgmpy's
    check of the other formats).

    Raises
    ------
    ValueError
        Naming the file and what is wrong in it.
    """
    path = Path(path)
    tokens = path.read_text(encoding="utf-8", errors="replace").split()
    at = 0

    def fail(what: str):
        raise ValueError(f"{path} is not a readable UAI network: {what}; it may be truncated or not a UAI file.")

    def take(what: str, kind=int):
        nonlocal at
        if at >= len(tokens):
            fail(f"the file ends where {what} should be")
        try:
            value = kind(tokens[at])
        except ValueError:
            fail(f"{tokens[at][:30]!r} is not {what}")
        at += 1
        return value

    if not tokens or tokens[0] != "BAYES":
        fail("it does not start with BAYES (bnclf reads Bayesian networks only)")
    at = 1
    n = take("the number of variables")
    cards = [take(f"the number of states of variable {i}") for i in range(n)]
    if n < 1 or min(cards) < 1:
        fail("a network needs variables, each with at least one state")
    n_functions = take("the number of functions")
    if n_functions != n:
        fail(f"{n} variables but {n_functions} functions (a Bayesian network has one table per variable)")
    scopes = []
    for f in range(n_functions):
        size = take(f"the scope size of function {f}")
        scope = [take(f"a variable of function {f}") for _ in range(size)]
        if not scope or not all(0 <= v < n for v in scope) or len(set(scope)) != len(scope):
            fail(f"function {f} has the scope {scope}, not distinct variables 0..{n - 1}")
        scopes.append(scope)
    children = [s[-1] for s in scopes]
    if sorted(children) != list(range(n)):
        fail("not every variable is the last variable (the child) of exactly one function")
    names = [f"var_{i}" for i in range(n)]
    families, tables = {}, {}
    for f, scope in enumerate(scopes):
        size = take(f"the table size of function {f}")
        shape = [cards[v] for v in scope]
        if size != int(np.prod(shape)):
            fail(f"function {f} lists {size} values for a table of {int(np.prod(shape))}")
        values = _floats(tokens[at : at + size])
        if values is None or len(values) < size:  # name the token at fault
            values = np.array([take(f"a value of function {f}", float) for _ in range(size)])
        else:
            at += size
        sums = values.reshape(-1, shape[-1]).sum(axis=1)
        if not (np.isfinite(values).all() and (values >= 0).all() and np.allclose(sums, 1, rtol=0, atol=0.01)):
            fail(f"the distributions of variable {scope[-1]} (function {f}) are not probabilities summing to one")
        child = names[scope[-1]]
        families[child] = tuple(names[v] for v in scope[:-1])
        tables[child] = np.moveaxis(values.reshape(shape), -1, 0)
    if at != len(tokens):
        fail(f"text after the last table ({tokens[at][:30]!r})")
    states = {names[i]: list(range(cards[i])) for i in range(n)}
    return names, families, tables, states


_BIF_NAME = r"[A-Za-z0-9_.\-]+"
_BIF_NAMES = rf"{_BIF_NAME}(?:, {_BIF_NAME})*"
_BIF_LINES = {
    "network": re.compile(rf"network ({_BIF_NAME}) \{{"),
    "variable": re.compile(rf"variable ({_BIF_NAME}) \{{"),
    "type": re.compile(rf"    type discrete \[ ([0-9]+) \] \{{ ({_BIF_NAMES}) \}};"),
    "probability": re.compile(rf"probability \( ({_BIF_NAME})(?: \| ({_BIF_NAMES}))? \) \{{"),
    "table": re.compile(r"    table ([^;]*);"),
    "row": re.compile(rf"    \( ({_BIF_NAMES}) \) ([^;]*);"),
}


def read_bif(path: str | Path) -> tuple[list[str], dict, dict, dict]:
    """The network of a BIF file in the layout :func:`bif_text` writes: ``(nodes, families, tables, states)``.

    A strict reader of that layout alone, line by line (bnclf checks the files it writes
    with it; users read BIF files with pgmpy's ``BIFReader``, through
    :func:`bnclf.io.read_network`): the ``network`` block, then every ``variable`` block,
    then every ``probability`` block, each line as :func:`bif_text` writes it. Names are
    as in the file; tables have axes ``(child, *parents)``, each column read from the row
    of its parent states (a variable without parents from its ``table`` line), as pgmpy
    reads them.

    Raises
    ------
    ValueError
        Naming the file, the line and what is wrong in it: a line not in the layout, a name
        declared twice (variables compared ignoring letter case, as pgmpy matches them), a
        table missing, given twice or of the wrong size, or a distribution that is not
        probabilities summing to one within 0.01 (pgmpy's check).
    """
    cursor = _BifCursor(Path(path))
    cursor.line("network")
    cursor.line("}")
    nodes, states = _read_bif_variables(cursor)
    families, tables = {}, {}
    while len(tables) < len(nodes):
        child, parents, table = _read_bif_probability(cursor, states, tables)
        families[child], tables[child] = tuple(parents), table
    cursor.check_end()
    return nodes, families, tables, states


class _BifCursor:
    """The lines of a BIF file read one at a time, each checked against its pattern in
    :data:`_BIF_LINES`; every failure is a ValueError naming the file and the line."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lines = path.read_text(encoding="utf-8").split("\n")
        self.number = 0  # lines read so far: the 1-based number of the last one

    def fail(self, what: str) -> NoReturn:
        raise ValueError(f"{self.path} is not a BIF network as bnclf writes it: line {self.number}: {what}")

    def next_starts_with(self, prefix: str) -> bool:
        return self.number < len(self.lines) and self.lines[self.number].startswith(prefix)

    def line(self, kind: str) -> re.Match | None:
        """The next line matched as a ``kind`` line (``"}"``: a closing brace, None)."""
        text = self.lines[self.number] if self.number < len(self.lines) else ""
        self.number += 1
        if kind == "}":
            if text != "}":
                self.fail(f"expected '}}', found {text[:40]!r}")
            return None
        match = _BIF_LINES[kind].fullmatch(text)
        if match is None:
            self.fail(f"expected a {kind} line, found {text[:40]!r}")
        return match

    def distributions(self, rows: list[str], size: int, child: str, first: int) -> np.ndarray:
        """The rows of numbers (the first at line ``first``) as an array, one row a distribution."""
        split = [text.split(", ") for text in rows]
        values = _floats([x for row in split for x in row]) if all(len(row) == size for row in split) else None
        if values is None:
            self.number = first + next(k for k, row in enumerate(split) if len(row) != size or _floats(row) is None)
            self.fail(f"expected {size} probabilities of {child}, found {rows[self.number - first][:40]!r}")
        values = values.reshape(len(rows), size)
        good = np.isfinite(values).all(axis=1) & (values >= 0).all(axis=1) & (abs(values.sum(axis=1) - 1) <= 0.01)
        if not good.all():
            self.number = first + int(np.argmin(good))
            self.fail(f"the probabilities of {child} do not sum to one")
        return values

    def check_end(self) -> None:
        """Fail unless what is left is the final line break."""
        rest = self.lines[self.number :]
        if not rest:
            self.fail("no line break at the end")
        if rest != [""]:
            self.number += 1
            self.fail(f"text after the last table ({self.lines[self.number - 1][:40]!r})")


def _read_bif_variables(cursor: _BifCursor) -> tuple[list[str], dict[str, list[str]]]:
    """The ``variable`` blocks: the names in file order and each one's states."""
    nodes, states, folded = [], {}, set()
    while cursor.next_starts_with("variable "):
        name = cursor.line("variable").group(1)
        if name.lower() in folded:
            cursor.fail(f"variable {name} is declared twice (names are compared ignoring letter case)")
        declared, listed = cursor.line("type").groups()
        if int(declared) != len(listed.split(", ")) or len(set(listed.split(", "))) != int(declared):
            cursor.fail(
                f"variable {name} declares {declared} states but lists {len(set(listed.split(', ')))} distinct ones"
            )
        cursor.line("}")
        folded.add(name.lower())
        nodes.append(name)
        states[name] = listed.split(", ")
    if not nodes:
        cursor.fail("no variable")
    return nodes, states


def _read_bif_probability(cursor: _BifCursor, states: dict, tables: dict) -> tuple[str, list[str], np.ndarray]:
    """One ``probability`` block: its child, parents and table (axes ``(child, *parents)``),
    for a declared child not in ``tables`` yet."""
    child, given = cursor.line("probability").groups()
    parents = given.split(", ") if given else []
    known = child in states and set(parents) <= set(states) and len({child, *parents}) == 1 + len(parents)
    if not known or child in tables:
        cursor.fail(f"the table of {child} given {parents} is not one of a declared variable, given others")
    shape = [len(states[child]), *(len(states[p]) for p in parents)]
    rows, at, seen, first = [], [], set(), cursor.number + 1
    if not parents:
        rows.append(cursor.line("table").group(1))
    else:
        index = [{s: i for i, s in enumerate(states[p])} for p in parents]
        for _ in range(int(np.prod(shape[1:]))):
            given_states, text = cursor.line("row").groups()
            listed = given_states.split(", ")
            config = tuple(i.get(s, -1) for i, s in zip(index, listed))
            if len(listed) != len(parents) or min(config) < 0 or config in seen:
                cursor.fail(f"the row ( {given_states} ) of {child} is not a new combination of its parents' states")
            rows.append(text)
            at.append(config)
            seen.add(config)
    values = cursor.distributions(rows, shape[0], child, first)
    if parents:
        table = np.empty(shape)
        table[(slice(None), *np.array(at).T)] = values.T  # row k: the column of its parent states
    else:
        table = values[0]
    cursor.line("}")
    return child, parents, table


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


def network_file_problem(path: str | Path, fmt: str) -> str:
    """What makes a BIF or XMLBIF file not a Bayesian network, read from its text, naming
    the line: a probability outside [0, 1] (naming the variable), two BIF variables whose
    names differ only in letter case (pgmpy's BIF reader does not tell them apart), or
    arcs that form a cycle (naming it). Empty when none of these is found (the file's
    other faults are left to the reader).

    Parameters
    ----------
    path : str or Path
        The network file.
    fmt : {"bif", "xmlbif"}
    """
    from html import unescape

    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    blocks = []  # (child, parents, numbers text, its offset, offset of the block)
    if fmt == "bif":
        declared: dict[str, tuple[str, int]] = {}
        for match in re.finditer(r"^[ \t]*variable\s+([^\s{]+)", text, re.M):
            name, line = match.group(1), _line_of(text, match.start())
            other = declared.get(name.lower())
            if other is not None and other[0] != name:
                return (
                    f"lines {other[1]} and {line}: variables {other[0]!r} and {name!r} differ only in letter "
                    "case, which pgmpy's BIF reader does not tell apart; rename one of them"
                )
            declared.setdefault(name.lower(), (name, line))
        pattern = r"^[ \t]*probability\s*\(\s*([^\s|)]+)\s*(?:\|([^)]*))?\)\s*\{([^}]*)\}"
        for match in re.finditer(pattern, text, re.M):
            parents = [p.strip() for p in (match.group(2) or "").replace(",", " ").split() if p.strip()]
            numbers = re.sub(r"\([^)]*\)|\btable\b|\bdefault\b", lambda m: " " * len(m.group(0)), match.group(3))
            blocks.append((match.group(1), parents, numbers, match.start(3), match.start()))
    else:
        for match in re.finditer(r"<DEFINITION>(.*?)</DEFINITION>", text, re.S | re.I):
            body, start = match.group(1), match.start(1)
            child = re.search(r"<FOR>(.*?)</FOR>", body, re.S | re.I)
            table = re.search(r"<TABLE>(.*?)</TABLE>", body, re.S | re.I)
            if child is None or table is None:
                continue
            parents = [unescape(g.strip()) for g in re.findall(r"<GIVEN>(.*?)</GIVEN>", body, re.S | re.I)]
            blocks.append((unescape(child.group(1).strip()), parents, table.group(1), start + table.start(1), start))
    for child, _, numbers, offset, _ in blocks:
        for number in re.finditer(r"[^\s,;]+", numbers):
            try:
                value = float(number.group(0))
            except ValueError:
                continue
            if not 0 <= value <= 1:  # NaN too
                return (
                    f"line {_line_of(text, offset + number.start())}: the table of variable {child!r} holds "
                    f"{number.group(0)}, which is not a probability (between 0 and 1)"
                )
    import networkx as nx

    graph = nx.DiGraph()
    where = {}
    for child, parents, _, _, start in blocks:
        graph.add_edges_from((p, child) for p in parents)
        where.setdefault(child, _line_of(text, start))
    try:
        cycle = nx.find_cycle(graph)
    except nx.NetworkXNoCycle:
        return ""
    arcs = " -> ".join([*(u for u, _ in cycle), cycle[0][0]])
    lines = ", ".join(str(where[v]) for _, v in cycle if v in where)
    return (
        f"the arcs {arcs} form a cycle (the tables at lines {lines}); a Bayesian network has none: "
        "remove one of these parents"
    )
