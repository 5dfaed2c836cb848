"""A ReDoS checker for Python regular expressions: does some input make backtracking super-linear?

`python -m tests.architecture.redos` imports every module of knowledge_harness, collects every
compiled pattern it holds (module globals, class attributes, and the lists, tuples and dicts of
patterns among them) and every literal pattern passed to an `re` function in its source, and fails
when one of them is ambiguous in the way that makes Python's backtracking matcher slow:

- exponential: a loop whose body can match the same text in two different ways, so n characters
  can be split 2^n ways (`(a|a)*`, `(\\w+)+`, or two alternatives of a repeated group that both take
  a CJK character, as the frontmatter key pattern did before commit 4d3bd10);
- polynomial: two loops, one after the other (or one inside the other), that can take the same
  text, so a failing match tries every split point (`\\s*\\s*x`, `(\\w+\\s?)+\\w+x`).

The test is the standard one on the pattern's backtracking automaton (Weideman et al., "Analyzing
matching time behavior of backtracking regular expression matchers by using ambiguity of NFA"):
exponential iff the automaton has a state with two different cycles over one word, polynomial iff
there are two states p != q with p->p, p->q and q->q over one word. Character classes are read with
Python's own meaning (`\\w`, `\\d` and `\\s` are Unicode unless re.ASCII): regexploit and recheck
read `\\w` as ASCII, and neither flags the old frontmatter key pattern.

Approximations, each on the safe side (they may flag, never hide): look-arounds and anchors are
taken as always true, except a look-ahead of one character class right before one character
class, which narrows that class (the idiom `(?=[...])[...]` used to keep two branches apart); a
repeat bounded above 4 is taken as unbounded (`{0,127}` backtracks like `*` on any real line).
The implicit retry at every start position of `re.search` (quadratic on a long run that never
matches) is not counted: that cost is in the input's length, which the callers bound.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.util
import pkgutil
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from re import _constants as C
from re import _parser as sre_parse
from typing import Any

MAX_UNICODE = 0x10FFFF
EXPAND_UP_TO = 4  # a repeat bounded at most this high is unrolled; above, taken as unbounded

Ranges = tuple[tuple[int, int], ...]  # sorted, disjoint, closed intervals of code points


@cache
def _every_code_point() -> str:
    return "".join(map(chr, range(MAX_UNICODE + 1)))


@cache
def _unicode_class(name: str) -> Ranges:
    # the matcher's own answer over every code point: exactly what `\w`, `\d`, `\s` take
    runs = re.finditer({"word": r"\w+", "digit": r"\d+", "space": r"\s+"}[name], _every_code_point())
    return tuple((m.start(), m.end() - 1) for m in runs)


def _union(parts: Iterable[Ranges]) -> Ranges:
    items = sorted(r for part in parts for r in part)
    out: list[tuple[int, int]] = []
    for lo, hi in items:
        if out and lo <= out[-1][1] + 1:
            if hi > out[-1][1]:
                out[-1] = (out[-1][0], hi)
        else:
            out.append((lo, hi))
    return tuple(out)


def _complement(ranges: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    nxt = 0
    for lo, hi in ranges:
        if lo > nxt:
            out.append((nxt, lo - 1))
        nxt = hi + 1
    if nxt <= MAX_UNICODE:
        out.append((nxt, MAX_UNICODE))
    return tuple(out)


def _intersect(a: Ranges, b: Ranges) -> Ranges:
    out: list[tuple[int, int]] = []
    i = j = 0
    while i < len(a) and j < len(b):
        lo, hi = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if lo <= hi:
            out.append((lo, hi))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def _overlaps(a: Ranges, b: Ranges) -> bool:
    i = j = 0
    while i < len(a) and j < len(b):
        if max(a[i][0], b[j][0]) <= min(a[i][1], b[j][1]):
            return True
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return False


_ASCII_CLASSES = {
    "word": ((48, 57), (65, 90), (95, 95), (97, 122)),
    "digit": ((48, 57),),
    "space": ((9, 13), (32, 32)),
}
_CATEGORIES = {
    C.CATEGORY_WORD: ("word", False),
    C.CATEGORY_NOT_WORD: ("word", True),
    C.CATEGORY_DIGIT: ("digit", False),
    C.CATEGORY_NOT_DIGIT: ("digit", True),
    C.CATEGORY_SPACE: ("space", False),
    C.CATEGORY_NOT_SPACE: ("space", True),
}


def _literal(cp: int, flags: int) -> Ranges:
    if flags & re.IGNORECASE:
        ch = chr(cp)
        return _union(((ord(c), ord(c)),) for c in {ch, ch.lower(), ch.upper(), ch.swapcase()} if len(c) == 1)
    return ((cp, cp),)


def _category(cat: Any, flags: int) -> Ranges:
    name, negate = _CATEGORIES[cat]
    ranges = _ASCII_CLASSES[name] if flags & re.ASCII else _unicode_class(name)
    return _complement(ranges) if negate else ranges


def _char_class(op: Any, av: Any, flags: int) -> Ranges | None:
    """The code points one item takes, or None when the item is not a one-character item."""
    if op is C.LITERAL:
        return _literal(av, flags)
    if op is C.NOT_LITERAL:
        return _complement(_literal(av, flags))
    if op is C.ANY:
        return ((0, MAX_UNICODE),) if flags & re.DOTALL else _complement(((10, 10),))
    if op is C.IN:
        negate = False
        parts: list[Ranges] = []
        for sub_op, sub_av in av:
            if sub_op is C.NEGATE:
                negate = True
            elif sub_op is C.RANGE:
                lo, hi = sub_av
                parts.append(((lo, hi),))
                if flags & re.IGNORECASE:
                    parts.append(_union(_literal(cp, flags) for cp in range(lo, min(hi, lo + 400) + 1)))
            elif sub_op is C.CATEGORY:
                parts.append(_category(sub_av, flags))
            else:
                parts.append(_char_class(sub_op, sub_av, flags) or ())
        ranges = _union(parts)
        return _complement(ranges) if negate else ranges
    return None


# -- the backtracking automaton ------------------------------------------------------------------


@dataclass
class _Nfa:
    eps: list[list[int]]
    chars: list[list[tuple[Ranges, int]]]
    back: set[tuple[int, int]]  # (end of a loop's body, the loop's state): one more iteration
    unroll_bounded: bool  # a repeat bounded above EXPAND_UP_TO: unbounded (False) or at most 2 (True)
    groups: dict[int, Ranges]
    cond: set[tuple[int, int]]  # empty moves through an anchor or look-around, which may fail
    filters: dict[int, Ranges]  # a state the next character must be one of these to leave

    @staticmethod
    def chars_in(items: list[tuple[Any, Any]], flags: int) -> Ranges:
        parts: list[Ranges] = []
        for op, av in items:
            cls = _char_class(op, av, flags)
            if cls is not None:
                parts.append(cls)
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
                parts.append(_Nfa.chars_in(list(av[2]), flags))
            elif op is C.SUBPATTERN:
                parts.append(_Nfa.chars_in(list(av[3]), flags))
            elif op is C.BRANCH:
                parts += [_Nfa.chars_in(list(alt), flags) for alt in av[1]]
            elif op is C.GROUPREF:
                parts.append(((0, MAX_UNICODE),))
        return _union(parts)

    def state(self) -> int:
        self.eps.append([])
        self.chars.append([])
        return len(self.eps) - 1


def _step(nfa: _Nfa, cur: int, cls: Ranges) -> int:
    end = nfa.state()
    nfa.chars[cur].append((cls, end))
    return end


def _build(nfa: _Nfa, items: list[tuple[Any, Any]], flags: int, start: int) -> int:
    """Add the sequence `items` after state `start`; return its end state."""
    cur = start
    i = 0
    while i < len(items):
        op, av = items[i]
        cls = _char_class(op, av, flags)
        lookahead = None
        if op in (C.ASSERT, C.ASSERT_NOT) and av[0] == 1 and len(av[1]) == 1:
            inner = _char_class(*next(iter(av[1])), flags)
            if inner is not None:  # (?=[...]) or (?![...]): a condition on the next character
                lookahead = inner if op is C.ASSERT else _complement(inner)
        if cls is not None:
            end = nfa.state()
            nfa.chars[cur].append((cls, end))
            cur = end
        elif op is C.SUBPATTERN:
            group, add_flags, del_flags, body = av
            cur = _build(nfa, list(body), (flags | add_flags) & ~del_flags, cur)
            if group is not None:
                nfa.groups[group] = _Nfa.chars_in(list(body), flags)
        elif op is C.GROUPREF:
            # the text a group took: taken as one character of those the group can take
            end = nfa.state()
            nfa.chars[cur].append((nfa.groups.get(av, ((0, MAX_UNICODE),)), end))
            cur = end
        elif op is C.BRANCH:
            end = nfa.state()
            for alt in av[1]:
                s = nfa.state()
                nfa.eps[cur].append(s)
                nfa.eps[_build(nfa, list(alt), flags, s)].append(end)
            cur = end
        elif op is C.GROUPREF_EXISTS:
            _group, yes, no = av
            end = nfa.state()
            for alt in (yes, no):
                s = nfa.state()
                nfa.eps[cur].append(s)
                nfa.eps[_build(nfa, list(alt) if alt is not None else [], flags, s)].append(end)
            cur = end
        elif lookahead is not None:
            end = nfa.state()
            nfa.eps[cur].append(end)
            nfa.cond.add((cur, end))
            nfa.filters[end] = lookahead
            cur = end
        elif op is C.POSSESSIVE_REPEAT and len(av[2]) == 1 and (run := _char_class(*next(iter(av[2])), flags)):
            # X{lo,hi}+ of one character class: the longest run only, so it is left when the
            # next character is no X (or hi were taken)
            lo, hi, _body = av
            for _ in range(lo):
                cur = _step(nfa, cur, run)
            end = nfa.state()
            if hi is C.MAXREPEAT or hi > EXPAND_UP_TO:
                nfa.chars[cur].append((run, cur))
            else:
                for _ in range(hi - lo):
                    stop = nfa.state()
                    nfa.eps[cur].append(stop)
                    nfa.filters[stop] = _complement(run)
                    nfa.eps[stop].append(end)
                    cur = _step(nfa, cur, run)
            stop = nfa.state()
            nfa.eps[cur].append(stop)
            if hi is C.MAXREPEAT or hi > EXPAND_UP_TO:
                nfa.filters[stop] = _complement(run)
            nfa.eps[stop].append(end)
            cur = end
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            lo, hi, body = av
            body = list(body)
            bounded = hi is not C.MAXREPEAT and hi <= EXPAND_UP_TO
            if hi is not C.MAXREPEAT and not bounded and nfa.unroll_bounded:
                # k iterations at most cost a constant factor k, never a higher degree
                lo, hi, bounded = min(lo, 2), min(lo, 2) + 1, True
            for _ in range(lo if bounded else min(lo, 2)):
                cur = _build(nfa, body, flags, cur)
            if bounded:
                end = nfa.state()
                for _ in range(hi - lo):
                    nfa.eps[cur].append(end)
                    cur = _build(nfa, body, flags, cur)
                nfa.eps[cur].append(end)
                cur = end
            else:
                loop = nfa.state()
                nfa.eps[cur].append(loop)
                body_end = _build(nfa, body, flags, loop)
                nfa.eps[body_end].append(loop)
                nfa.back.add((body_end, loop))
                end = nfa.state()
                nfa.eps[loop].append(end)
                cur = end
        elif op is C.ATOMIC_GROUP:
            cur = _build(nfa, list(av), flags, cur)
        else:  # AT, ASSERT, ASSERT_NOT, FAILURE...: taken as matching the empty string, maybe failing
            end = nfa.state()
            nfa.eps[cur].append(end)
            nfa.cond.add((cur, end))
            cur = end
        i += 1
    return cur


@dataclass(frozen=True)
class _Edge:
    src: int
    cls: Ranges
    dst: int
    ident: int


def _edges(pattern: re.Pattern[str], unroll_bounded: bool) -> tuple[list[list[_Edge]], set[int]]:
    """The automaton without empty moves (an edge reached by two empty paths is two edges), and
    the states from which the match succeeds without reading on and without a condition."""
    nfa = _Nfa([], [], set(), unroll_bounded, {}, set(), {})
    start = nfa.state()
    final = _build(nfa, list(sre_parse.parse(pattern.pattern, pattern.flags)), pattern.flags, start)
    sure = {final}
    changed = True
    while changed:
        changed = False
        for u, targets in enumerate(nfa.eps):
            if u not in sure and any(t in sure and (u, t) not in nfa.cond for t in targets):
                sure.add(u)
                changed = True
    relevant = [start, *sorted({dst for out in nfa.chars for _cls, dst in out})]
    out: list[list[_Edge]] = [[] for _ in nfa.eps]
    ident = 0
    for p in relevant:
        reached: dict[tuple[int, Ranges], int] = {}

        def walk(
            s: int, iterated: frozenset[int], mask: Ranges, reached: dict[tuple[int, Ranges], int] = reached
        ) -> None:
            # the matcher never iterates a loop again after an iteration that took nothing
            if s in nfa.filters:
                mask = _intersect(mask, nfa.filters[s])
                if not mask:
                    return
            key = (s, mask)
            reached[key] = min(reached.get(key, 0) + 1, 2)
            for t in nfa.eps[s]:
                if (s, t) in nfa.back:
                    if t in iterated:
                        continue
                    walk(t, iterated | {t}, mask)
                elif reached.get((t, mask), 0) < 2:
                    walk(t, iterated, mask)

        walk(p, frozenset(), ((0, MAX_UNICODE),))
        for (s, mask), count in reached.items():
            for cls, dst in nfa.chars[s]:
                narrowed = _intersect(cls, mask)
                if narrowed:
                    for _ in range(count):
                        out[p].append(_Edge(p, narrowed, dst, ident))
                        ident += 1
    return out, sure


def _sccs(nodes: list[Any], succ: dict[Any, list[Any]]) -> dict[Any, int]:
    """Tarjan's strongly connected components, iterative: node -> component number."""
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    comp: dict[Any, int] = {}
    stack: list[Any] = []
    on_stack: set[Any] = set()
    counter = 0
    ncomp = 0
    for root in nodes:
        if root in index:
            continue
        work: list[tuple[Any, Iterator[Any]]] = [(root, iter(succ.get(root, ())))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(succ.get(w, ()))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = ncomp
                    if w == v:
                        break
                ncomp += 1
    return comp


def _pick(cls: Ranges) -> str:
    """One character of a class, a printable one when it has one (for readable witnesses)."""
    for lo, hi in cls:
        for cp in range(max(lo, 0x21), min(hi, 0x7E) + 1):
            return chr(cp)
    for lo, _hi in cls:
        if lo > 0x20:
            return chr(lo)
    return chr(cls[0][0])


def _path_word(succ: dict[Any, list[tuple[Any, Ranges]]], src: Any, dst: Any, within: Any = None) -> str | None:
    """A word along a shortest path src -> dst (breadth first)."""
    prev: dict[Any, tuple[Any, Ranges] | None] = {src: None}
    todo = [src]
    while todo:
        nxt_todo = []
        for u in todo:
            for v, cls in succ.get(u, ()):
                if v not in prev and (within is None or within(v)):
                    prev[v] = (u, cls)
                    if v == dst:
                        word = []
                        node = v
                        while (step := prev[node]) is not None:
                            word.append(_pick(step[1]))
                            node = step[0]
                        return "".join(reversed(word))
                    nxt_todo.append(v)
        todo = nxt_todo
    return "" if src == dst else None


_Pair = tuple[int, int]


def _squared(
    out: list[list[_Edge]],
) -> tuple[dict[_Pair, list[tuple[_Pair, Ranges]]], list[tuple[_Pair, _Pair, Ranges]]]:
    """The automaton squared, from its diagonal pairs (q, q): each pair's moves over a character
    both its edges take, and the moves made by two different edges."""
    succ: dict[_Pair, list[tuple[_Pair, Ranges]]] = {}
    diverging: list[tuple[_Pair, _Pair, Ranges]] = []
    seen = {(q, q) for q in range(len(out))}
    todo = list(seen)
    while todo:
        a, b = node = todo.pop()
        nxt = succ.setdefault(node, [])
        for e1 in out[a]:
            for e2 in out[b]:
                cls = _intersect(e1.cls, e2.cls)
                if cls:
                    target = (e1.dst, e2.dst)
                    nxt.append((target, cls))
                    if e1.ident != e2.ident:
                        diverging.append((node, target, cls))
                    if target not in seen:
                        seen.add(target)
                        todo.append(target)
    return succ, diverging


def exponential_witness(pattern: re.Pattern[str]) -> tuple[str, str] | None:
    """(prefix, pump): `prefix + pump * n` reaches a state with two ways round one loop."""
    out, _sure = _edges(pattern, unroll_bounded=False)
    single: dict[Any, list[tuple[Any, Ranges]]] = {q: [(e.dst, e.cls) for e in out[q]] for q in range(len(out))}
    succ, diverging = _squared(out)
    plain = {u: [v for v, _c in vs] for u, vs in succ.items()}
    comp = _sccs(list(plain), plain)
    for u, v, cls in diverging:
        if comp[u] != comp[v]:
            continue
        for q in range(len(out)):
            if comp.get((q, q)) == comp[u]:
                same = comp[u]
                inside = lambda n, same=same: comp.get(n) == same  # noqa: E731
                head = _path_word(succ, (q, q), u, inside)
                tail = _path_word(succ, v, (q, q), inside)
                prefix = _path_word(single, 0, q)
                if head is not None and tail is not None and prefix is not None:
                    return prefix, head + _pick(cls) + tail
    return None


def _exponential(out: list[list[_Edge]], sure: set[int]) -> bool:
    """A state with two different cycles over one word: some component of the automaton squared
    holds a diagonal pair (q, q) and a pair of two different edges. A loop the match can always
    leave for its end (nothing after it can fail, as in `(a|a)*` closing a `search` pattern)
    never backtracks, so a component whose states all can is no finding."""
    succ, diverging = _squared(out)
    plain = {u: [v for v, _c in vs] for u, vs in succ.items()}
    comp = _sccs(list(plain), plain)
    diagonal = {comp[(q, q)] for q in range(len(out)) if (q, q) in comp and q not in sure}
    return any(comp[u] == comp[v] and comp[u] in diagonal for u, v, _c in diverging)


def _polynomial(out: list[list[_Edge]]) -> bool:
    """Two states p != q with p->p, p->q and q->q over one word: in the automaton cubed,
    (p, p, q) reaches (p, q, q)."""
    n = len(out)
    succ1: dict[int, list[int]] = {q: [e.dst for e in out[q]] for q in range(n)}
    comp1 = _sccs(list(range(n)), succ1)
    looping = {q for q in range(n) if any(comp1[e.dst] == comp1[q] for e in out[q])}
    for p in looping:
        for q in looping:
            if p == q or comp1[p] == comp1[q]:
                continue  # inside one component, any ambiguity is the exponential kind
            start = (p, p, q)
            goal = (p, q, q)
            seen = {start}
            todo = [start]
            while todo:
                a, b, c = todo.pop()
                for e1 in out[a]:
                    for e2 in out[b]:
                        cls = _intersect(e1.cls, e2.cls)
                        if not cls:
                            continue
                        for e3 in out[c]:
                            if _overlaps(cls, e3.cls):
                                t = (e1.dst, e2.dst, e3.dst)
                                if t == goal:
                                    return True
                                if t not in seen and comp1[t[0]] == comp1[p] and comp1[t[2]] == comp1[q]:
                                    seen.add(t)
                                    todo.append(t)
    return False


def verdict(pattern: re.Pattern[str] | str, flags: int = 0) -> str | None:
    """'exponential', 'polynomial', or None when every input is matched in linear time."""
    compiled = re.compile(pattern, flags) if isinstance(pattern, str) else pattern
    if isinstance(compiled.pattern, bytes):
        return None
    if _exponential(*_edges(compiled, unroll_bounded=False)):
        return "exponential"
    if _polynomial(_edges(compiled, unroll_bounded=True)[0]):
        return "polynomial"
    return None


# -- collecting a package's patterns -------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    where: str
    pattern: re.Pattern[str]


_RE_FUNCTIONS = frozenset({"compile", "match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "split"})


def _held(value: Any, depth: int = 0) -> Iterator[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        yield value
    elif depth < 3 and isinstance(value, list | tuple | frozenset | set):
        for item in value:
            yield from _held(item, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for item in value.values():
            yield from _held(item, depth + 1)


def _literal_calls(path: Path) -> Iterator[tuple[int, str, int]]:
    """(line, pattern, flags) of each `re.f(<literal>, ...)` call in a source file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in _RE_FUNCTIONS
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            continue
        flags = 0
        flag_nodes = [kw.value for kw in node.keywords if kw.arg == "flags"]
        position = {"compile": 1, "match": 2, "fullmatch": 2, "search": 2, "findall": 2, "finditer": 2}
        if node.func.attr in position and len(node.args) > position[node.func.attr]:
            flag_nodes.append(node.args[position[node.func.attr]])
        for flag_node in flag_nodes:
            for sub in ast.walk(flag_node):
                if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id == "re":
                    flags |= int(getattr(re, sub.attr, 0))
        yield node.lineno, node.args[0].value, flags


def collect(package: str) -> list[Found]:
    root = importlib.import_module(package)
    found: dict[tuple[str, int], Found] = {}
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra (e.g. embeddings) not installed: its source is still read
            module = None
        if module is not None:
            for name, value in vars(module).items():
                holders = [(name, value)]
                if isinstance(value, type) and value.__module__ == module.__name__:
                    holders += [(f"{name}.{attr}", item) for attr, item in vars(value).items()]
                for where, held in holders:
                    for pattern in _held(held):
                        found.setdefault((pattern.pattern, pattern.flags), Found(f"{info.name}.{where}", pattern))
        spec = importlib.util.find_spec(info.name)
        origin = spec.origin if spec else None
        if origin and origin.endswith(".py"):
            for line, text, flags in _literal_calls(Path(origin)):
                try:
                    pattern = re.compile(text, flags)
                except re.error:
                    continue
                found.setdefault((pattern.pattern, pattern.flags), Found(f"{info.name}:{line}", pattern))
    return list(found.values())


# Polynomial (quadratic in one line's length) patterns that were there when this check came,
# by the SHA-1 of their text: each is left to the area that owns it. A pattern changed or added
# is checked afresh; an exponential one is never listed.
KNOWN_POLYNOMIAL: dict[str, str] = {
    "970623d21304": "knowledge_harness.pipeline.blog._OPTION",
    "3d58244b7c99": "knowledge_harness.pipeline.draft_checks._DIRECTIVE",
    "7e0ff3ddd502": "knowledge_harness.pipeline.drafts.META_LINE",
    "7b937c3a3750": "knowledge_harness.pipeline.ops.o01_capture._HEADING",
    "7567ccee512b": "knowledge_harness.pipeline.safety._LINE_LABEL_BEFORE",
    "a6f5a98b2e9a": "knowledge_harness.pipeline.safety._LINE_LABEL_AFTER",
    "f309bb73d994": "knowledge_harness.pipeline.safety._OWN_THING_JA",
    "9ee9b922a767": "knowledge_harness.pipeline.safety._CONTEXT",
    "e5aee236c346": "knowledge_harness.pipeline.safety._CONTEXT",
    "b668dda80e4b": "knowledge_harness.trust.validate.claims._HEADING",
    "22d231464f42": "knowledge_harness.trust.validate.claims._LIST_ITEM",
    "1d9fa3b48c77": "knowledge_harness.trust.validate.claims._FOOTNOTE_DEF",
    "7070a8a33180": "knowledge_harness.trust.validate.claims._CODE",
    "83792ff9c066": "knowledge_harness.vault.references._HEADING",
}


def _digest(pattern: re.Pattern[str]) -> str:
    return hashlib.sha1(pattern.pattern.encode("utf-8")).hexdigest()[:12]


def main(argv: list[str]) -> int:
    package = argv[0] if argv else "knowledge_harness"
    patterns = collect(package)
    bad = []
    known = 0
    for f in patterns:
        v = verdict(f.pattern)
        if v == "polynomial" and _digest(f.pattern) in KNOWN_POLYNOMIAL:
            known += 1
        elif v is not None:
            bad.append((f, v))
    for f, v in bad:
        witness = exponential_witness(f.pattern) if v == "exponential" else None
        hint = f" (try {witness[0]!r} + {witness[1]!r} * 20 + a character that fails)" if witness else ""
        print(f"{f.where}: {v} backtracking: {f.pattern.pattern!r}{hint}", file=sys.stderr)
    print(
        f"redos: {len(patterns)} patterns in {package}, {len(bad)} super-linear ({known} known polynomial left to their areas)"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
