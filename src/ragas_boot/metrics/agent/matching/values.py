"""When two argument values are equal, and when a call's arguments meet a reference's.

Each argument value becomes a hashable *canonical form* whose ``==`` is the value equality of
the comparison mode (JSON equality, or JSON equality after ``NORMALIZE``); a reference call's
expectation (:class:`Expected`: canonical values plus argument rules) scores an actual call's
arguments. Pure computation; the matcher asks these per pair, so the plain cases are the
hot paths.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import orjson

from ragas_boot.metrics.agent.matching.modes import ToolCallMode, ValueComparison
from ragas_boot.samples import ArgumentRule, ExpectedToolCall, JsonType, ToolCall
from ragas_boot.samples.rules import describe_check

__all__ = [
    "ABSENT",
    "SORTED_KEYS",
    "Expected",
    "RawExpected",
    "argument_problems",
    "argument_score",
    "canonical_arguments",
    "rule_failure",
]

SORTED_KEYS = orjson.OPT_SORT_KEYS
"""orjson's option for one spelling per JSON value (keys sorted)."""


class _Marker:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


_TRUE, _FALSE, _ARRAY, _OTHER, ABSENT = (
    _Marker(name) for name in ("true", "false", "array", "other", "absent")
)


def argument_score(
    actual_args: Mapping[str, Any] | None,
    reference_args: Mapping[str, Any] | None,
    *,
    mode: ToolCallMode | str = ToolCallMode.STRICT,
    comparison: ValueComparison | str = ValueComparison.EXACT,
    rules: Mapping[str, ArgumentRule] | None = None,
) -> float:
    """Score how well one call's arguments agree with the expected ones, in [0, 1].

    Args:
        actual_args: the arguments the agent passed (``None`` means ``{}``).
        reference_args: the expected arguments (``None`` means ``{}``).
        mode: ``STRICT``: 1.0 iff the same names with equal values, else 0.0. ``FLEXIBLE``:
            1.0 when both are empty; 0.5 when only the reference is empty (the Java rule);
            else the share of reference names whose actual value is present and equal
            (extra actual names are ignored).
        comparison: ``EXACT`` or ``NORMALIZE`` value equality (see the module docs).
        rules: per argument name, a rule whose checks decide it (the expected value, where
            ``reference_args`` gives one, is compared with too: see :func:`rule_failure`); a
            name with a rule is an expected argument even when ``reference_args`` lacks it
            (STRICT mode: an optional one may be missing, a forbidden one must be).

    Returns:
        The argument score.
    """
    normalize = ValueComparison(comparison) is ValueComparison.NORMALIZE
    strict = ToolCallMode(mode) is ToolCallMode.STRICT
    actual = canonical_arguments(actual_args, normalize)
    if rules:
        expected = Expected.build(dict(reference_args or {}), dict(rules), normalize)
        return expected.score(dict(actual_args or {}), actual, strict)
    reference = canonical_arguments(reference_args, normalize)
    if strict:
        return 1.0 if actual == reference else 0.0
    return _flexible_score(actual, reference)


def rule_failure(
    rule: ArgumentRule,
    value: Any,
    expected: Any = ABSENT,
    *,
    present: bool = True,
    comparison: ValueComparison | str = ValueComparison.EXACT,
) -> str | None:
    """Why an argument breaks ``rule``, or ``None`` when it passes: every rule is checked
    here (the matching asks the same question per pair).

    Args:
        rule: the rule.
        value: the argument's value (not read when absent).
        expected: the expected value from the reference's ``arguments``
            (:data:`ABSENT`: none): ``tolerance`` and ``subset`` compare with it, any
            other rule also wants the value equal to it.
        present: whether the call has the argument at all.
        comparison: value equality (``one_of``, the expected value, inside ``subset``, and
            numeric strings for ``tolerance``/``range`` under ``NORMALIZE``).
    """
    normalize = ValueComparison(comparison) is ValueComparison.NORMALIZE
    return _rule_failure(rule, expected, present, value, normalize)


def argument_problems(
    actual: ToolCall,
    reference: ToolCall,
    *,
    comparison: ValueComparison | str = ValueComparison.EXACT,
) -> dict[str, str]:
    """What is wrong with each argument of ``actual`` against ``reference`` (a pair the
    matching left incorrect), by name, in the reference's order: a missing argument, a
    value that differs, a rule it breaks (:func:`rule_failure`). Arguments the reference
    does not name are not problems here (STRICT mode reports them as extra keys).
    """
    normalize = ValueComparison(comparison) is ValueComparison.NORMALIZE
    rules = reference.argument_rules if isinstance(reference, ExpectedToolCall) else {}
    raw = actual.arguments
    problems: dict[str, str] = {}
    for name in dict.fromkeys([*reference.arguments, *rules]):
        present = name in raw
        expected = reference.arguments.get(name, ABSENT)
        if name in rules:
            failure = _rule_failure(rules[name], expected, present, raw.get(name), normalize)
        elif not present:
            failure = "expected the argument, which is missing"
        elif _canonical_value(raw[name], normalize) != _canonical_value(expected, normalize):
            failure = f"expected {expected!r}"
        else:
            failure = None
        if failure is not None:
            got = f", got {raw[name]!r}" if present and not failure.startswith("the ") else ""
            problems[name] = failure + got
    return problems


# --- canonical values --------------------------------------------------------------------
# Each argument value becomes a hashable canonical form whose ``==`` is the value equality
# of the comparison mode; a call's arguments become a dict of names to canonical forms.
# Booleans and arrays get marker objects so that neither can equal a number or a string.


_NUMERIC = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER_STARTS = frozenset("0123456789+-.")


_AS_IS = frozenset({int, float, type(None)})
_AS_IS_EXACT = _AS_IS | {str}


def canonical_arguments(arguments: Mapping[str, Any] | None, normalize: bool) -> dict[str, Any]:
    """A call's arguments as names to canonical forms: two calls' results are ``==`` exactly
    when their arguments are equal under EXACT (or, with ``normalize``, NORMALIZE) comparison.
    """
    if not arguments:
        return {}
    if normalize:
        return {name: _normalized(value) for name, value in arguments.items()}
    canonical = {}
    for name, value in arguments.items():
        kind = type(value)
        # Plain strings and numbers are most values: no call for them (the hot path).
        if kind is str or kind is int or kind is float or value is None:
            canonical[name] = value
        else:
            canonical[name] = _exact(value)
    return canonical


def _exact(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return frozenset(
            [
                (key, item if type(item) in _AS_IS_EXACT else _exact(item))
                for key, item in value.items()
            ]
        )
    if kind is list:
        return (_ARRAY, *[item if type(item) in _AS_IS_EXACT else _exact(item) for item in value])
    if kind is bool:
        return _TRUE if value else _FALSE
    if kind in _AS_IS_EXACT:
        return value
    if isinstance(value, Mapping):
        return _exact(dict(value))
    if isinstance(value, tuple | list):
        return _exact(list(value))
    return _scalar(value)


def _normalized(value: Any) -> Any:
    kind = type(value)
    if kind is str:
        return _normalized_text(value)
    if kind in _AS_IS:
        return value
    if kind is bool:
        return _TRUE if value else _FALSE
    if kind is dict or isinstance(value, Mapping):
        return frozenset([(key, _normalized(item)) for key, item in value.items()])
    if kind is list or isinstance(value, tuple | list):
        return (_ARRAY, *[_normalized(item) for item in value])
    if isinstance(value, str):
        return _normalized_text(value)
    return _scalar(value)


def _scalar(value: Any) -> Any:
    """Subclasses of str and numbers as themselves; anything else (not JSON) by its repr."""
    if isinstance(value, bool):
        return _TRUE if value else _FALSE
    if isinstance(value, str | int | float):
        return value
    return (_OTHER, repr(value))


def _normalized_text(text: str) -> Any:
    stripped = text.strip()
    # The first-character test spares the regex for ordinary words.
    if stripped[:1] in _NUMBER_STARTS and _NUMERIC.fullmatch(stripped):
        try:
            return int(stripped) if _INTEGER.fullmatch(stripped) else float(stripped)
        except ValueError:  # more digits than int() accepts
            return float(stripped)
    return stripped.casefold()


def _flexible_score(actual: Mapping[str, Any], reference: Mapping[str, Any]) -> float:
    if not reference:
        return 0.5 if actual else 1.0
    hits = 0
    for name, expected in reference.items():
        if actual.get(name, ABSENT) == expected:
            hits += 1
    return hits / len(reference)


def _canonical_value(value: Any, normalize: bool) -> Any:
    if normalize:
        return _normalized(value)
    return value if type(value) in _AS_IS_EXACT else _exact(value)


class Expected:
    """What one reference call expects: canonical values by name, plus rules by name."""

    __slots__ = ("_allowed", "_names", "_order", "_required", "exact", "normalize", "rules")

    def __init__(
        self,
        exact: dict[str, Any],
        rules: dict[str, tuple[ArgumentRule, Any]],
        normalize: bool,
        order: list[str] | None = None,
    ) -> None:
        self.exact = exact  # name -> canonical value, for names without a rule
        self.rules = rules  # name -> (rule, expected value from the arguments or ABSENT)
        self.normalize = normalize
        # The names and their order are built when first asked for: most reference calls of
        # a run are matched whole and never asked (the hot path).
        self._names: set[str] | None = None
        self._required: set[str] | None = None
        self._allowed: set[str] | None = None
        self._order = order

    @property
    def names(self) -> set[str]:
        """Every expected argument name (with or without a rule)."""
        if self._names is None:
            self._names = set(self.exact) | set(self.rules)
        return self._names

    @property
    def required(self) -> set[str]:
        """The names an actual call must have: the plain ones and those whose rule is neither
        optional nor forbidden."""
        if self._required is None:
            self._required = set(self.exact) | {
                name
                for name, (rule, _) in self.rules.items()
                if not (rule.optional or rule.forbidden)
            }
        return self._required

    @property
    def allowed(self) -> set[str]:
        """The names an actual call may have in STRICT mode: every expected name but the
        forbidden ones."""
        if self._allowed is None:
            self._allowed = set(self.exact) | {
                name for name, (rule, _) in self.rules.items() if not rule.forbidden
            }
        return self._allowed

    @property
    def order(self) -> list[str]:
        """The expected argument names in the reference's order."""
        if self._order is None:
            self._order = list(self.exact)
        return self._order

    @classmethod
    def of(cls, call: ToolCall, normalize: bool) -> Expected:
        if isinstance(call, ExpectedToolCall) and call.argument_rules:
            return cls.build(call.arguments, call.argument_rules, normalize)
        return cls(canonical_arguments(call.arguments, normalize), {}, normalize)

    @classmethod
    def build(
        cls, arguments: Mapping[str, Any], rules: Mapping[str, ArgumentRule], normalize: bool
    ) -> Expected:
        plain = {name: value for name, value in arguments.items() if name not in rules}
        return cls(
            canonical_arguments(plain, normalize),
            {name: (rule, arguments.get(name, ABSENT)) for name, rule in rules.items()},
            normalize,
            list(dict.fromkeys([*arguments, *rules])),
        )

    def passes(self, name: str, raw: Mapping[str, Any], canonical: Mapping[str, Any]) -> bool:
        """Whether the actual call's argument ``name`` meets the expectation."""
        if name in self.rules:
            rule, expected = self.rules[name]
            return _rule_failure(rule, expected, name in raw, raw.get(name), self.normalize) is None
        return bool(canonical.get(name, ABSENT) == self.exact[name])

    def score(self, raw: Mapping[str, Any], canonical: Mapping[str, Any], strict: bool) -> float:
        """The argument score of an actual call (raw and canonical arguments)."""
        if not self.rules:  # equality only: no rule to look up per name
            exact = self.exact
            if strict:
                return 1.0 if canonical == exact else 0.0
            return _flexible_score(canonical, exact)
        if strict:
            names = set(raw)
            if not self.required <= names <= self.allowed:
                return 0.0
            return 1.0 if all(self.passes(name, raw, canonical) for name in self.order) else 0.0
        if not self.names:
            return 0.5 if raw else 1.0
        hits = sum(1 for name in self.order if self.passes(name, raw, canonical))
        return hits / len(self.names)

    def share(self, raw: Mapping[str, Any], canonical: Mapping[str, Any]) -> float:
        """The FLEXIBLE argument score, whatever the mode: how close a left-over call came."""
        return self.score(raw, canonical, False)

    def differences(
        self, raw: Mapping[str, Any], canonical: Mapping[str, Any]
    ) -> tuple[list[str], list[str], list[str]]:
        """Missing, extra and different argument names of an actual call."""
        if not self.rules:
            exact = self.exact
            return (
                [name for name in exact if name not in raw],
                [name for name in raw if name not in exact],
                [
                    name
                    for name, value in exact.items()
                    if name in raw and canonical.get(name, ABSENT) != value
                ],
            )
        required = self.required
        missing = [name for name in self.order if name in required and name not in raw]
        extra = [name for name in raw if name not in self.names]
        different = [
            name for name in self.order if name in raw and not self.passes(name, raw, canonical)
        ]
        return missing, extra, different


class RawExpected:
    """A plain reference call's expectation under EXACT comparison, read off its raw
    arguments: the same shares and differences as :class:`Expected` without canonical
    forms (the arguments given in place of canonical ones are not read). The comparison
    behind the last share is kept for the differences of the same call."""

    __slots__ = ("_last", "exact")

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.exact = arguments
        self._last: tuple[Mapping[str, Any], list[str], list[str]] | None = None

    def _compare(self, raw: Mapping[str, Any]) -> tuple[list[str], list[str]]:
        """Missing and different argument names of an actual call."""
        last = self._last
        if last is not None and last[0] is raw:
            return last[1], last[2]
        missing, different = [], []
        for name, value in self.exact.items():
            if name not in raw:
                missing.append(name)
            elif not _json_equal(raw[name], value):
                different.append(name)
        self._last = (raw, missing, different)
        return missing, different

    def share(self, raw: Mapping[str, Any], canonical: Mapping[str, Any]) -> float:
        """The FLEXIBLE argument score of an actual call with ``raw`` arguments."""
        exact = self.exact
        if not exact:
            return 0.5 if raw else 1.0
        missing, different = self._compare(raw)
        return (len(exact) - len(missing) - len(different)) / len(exact)

    def differences(
        self, raw: Mapping[str, Any], canonical: Mapping[str, Any]
    ) -> tuple[list[str], list[str], list[str]]:
        """Missing, extra and different argument names of an actual call."""
        exact = self.exact
        missing, different = self._compare(raw)
        return list(missing), [name for name in raw if name not in exact], list(different)


def _json_equal(value: Any, expected: Any) -> bool:
    """JSON equality of two values (the canonical forms' ``==``), deciding on the raw values
    where they settle it: values JSON calls equal are equal in Python too; of Python-equal
    values, plain strings, numbers and nulls are JSON-equal, a boolean equals only a
    boolean, objects and arrays spelled alike are equal (see :func:`_match_plain`),
    and the rest is compared canonically."""
    if value != expected:
        return False
    kind, other = type(value), type(expected)
    if kind in _AS_IS_EXACT and other in _AS_IS_EXACT:
        return True
    if kind is bool or other is bool:
        return kind is other
    try:
        if orjson.dumps(value, None, SORTED_KEYS) == orjson.dumps(expected, None, SORTED_KEYS):
            return True
    except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits
        pass
    return bool(_exact(value) == _exact(expected))


def _rule_failure(
    rule: ArgumentRule, expected: Any, present: bool, value: Any, normalize: bool
) -> str | None:
    """Why the argument breaks the rule, ``None`` when it passes (checks in
    :attr:`ArgumentRule.checks` order; the first that fails says why)."""
    if not present:
        if rule.optional or rule.forbidden:
            return None
        return "expected the argument, which is missing"
    if rule.forbidden:
        return "the argument is forbidden"
    if rule.any:
        return None
    if rule.type is not None and not rule.type.holds(value):
        return f"expected type {rule.type.value}, got {_json_type(value)}"
    if expected is not ABSENT:
        if rule.tolerance is not None:
            number, target = _as_number(value, normalize), _as_number(expected, False)
            # A hair of slack so that 35.69 is within 0.01 of 35.68 despite binary floats.
            if (
                number is None
                or target is None
                or abs(number - target) > rule.tolerance + 1e-9 * max(1.0, abs(target))
            ):
                return f"expected a number within {rule.tolerance:g} of {expected!r}"
        elif rule.subset:
            if not _contains(value, expected, normalize):
                return f"expected an object holding {expected!r}"
        elif _canonical_value(value, normalize) != _canonical_value(expected, normalize):
            return f"expected {expected!r}"
    elif rule.tolerance is not None or rule.subset:  # pragma: no cover - refused when built
        return "no expected value to compare with"
    if rule.one_of is not None:
        canonical = _canonical_value(value, normalize)
        if not any(canonical == _canonical_value(item, normalize) for item in rule.one_of):
            return f"expected one of {rule.one_of!r}"
    if rule.regex is not None and not (
        isinstance(value, str) and re.search(rule.regex, value) is not None
    ):
        return f"expected a string matching /{rule.regex}/"
    if rule.range is not None and not rule.range.holds(_as_number(value, normalize)):
        return f"expected a number {rule.range.describe()}"
    if rule.check is not None:
        return _check_failure(rule.check, value)
    return None


def _check_failure(check: Callable[[Any], Any], value: Any) -> str | None:
    """A user's check: truthy passes; one that raises fails, its error the reason."""
    try:
        passed = check(value)
    except Exception as error:  # the user's code: its failure is data, not a crash
        return f"{describe_check(check)} raised {type(error).__name__}: {error}"
    return None if passed else f"{describe_check(check)} returned {passed!r}"


def _json_type(value: Any) -> str:
    """The JSON type of a value, for messages (an integral float reads as an integer)."""
    for kind in (JsonType.NULL, JsonType.BOOLEAN, JsonType.INTEGER, JsonType.NUMBER):
        if kind.holds(value):
            return kind.value
    for kind in (JsonType.STRING, JsonType.ARRAY, JsonType.OBJECT):
        if kind.holds(value):
            return kind.value
    return type(value).__name__


def _as_number(value: Any, normalize: bool) -> float | None:
    if isinstance(value, bool):
        return None
    if normalize and isinstance(value, str):
        value = _normalized_text(value)
        if isinstance(value, str):
            return None
    if isinstance(value, int | float):
        number = float(value)
        return number if math.isfinite(number) else None
    return None


def _contains(value: Any, expected: Any, normalize: bool) -> bool:
    """``subset``: objects hold at least the expected keys (recursively); others are equal."""
    if isinstance(expected, Mapping):
        return isinstance(value, Mapping) and all(
            key in value and _contains(value[key], item, normalize)
            for key, item in expected.items()
        )
    return bool(_canonical_value(value, normalize) == _canonical_value(expected, normalize))
