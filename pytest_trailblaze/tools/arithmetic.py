"""Evaluation of ``assertMath`` expressions: numbers, operators and exp4j's functions, nothing else.

Expressions come from trail files, so they are parsed with ``ast`` and walked by a whitelist;
no name, attribute or call outside the table below can run.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Mod: math.fmod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[float], float]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
FUNCTIONS: dict[str, Callable[[float], float]] = {
    "abs": abs,
    "acos": math.acos,
    "asin": math.asin,
    "atan": math.atan,
    "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x),
    "ceil": math.ceil,
    "cos": math.cos,
    "cosh": math.cosh,
    "exp": math.exp,
    "expm1": math.expm1,
    "floor": math.floor,
    "log": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "log1p": math.log1p,
    "sin": math.sin,
    "sinh": math.sinh,
    "sqrt": math.sqrt,
    "tan": math.tan,
    "tanh": math.tanh,
    "signum": lambda x: float((x > 0) - (x < 0)),
}
CONSTANTS = {"pi": math.pi, "π": math.pi, "e": math.e}


class ExpressionError(ValueError):
    """The expression uses something other than numbers, operators and known functions."""


def evaluate(expression: str) -> float:
    """The value of an arithmetic expression; ``^`` is power, as in exp4j."""
    text = expression.replace("^", "**")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse {expression!r}: {exc.msg}") from None
    try:
        return float(_eval(tree.body))
    except (ZeroDivisionError, OverflowError, ValueError) as exc:
        raise ExpressionError(f"cannot evaluate {expression!r}: {exc}") from None


def _eval(node: ast.AST) -> float:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
    ):
        return float(node.value)  # floats overflow fast instead of building huge integers
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        value = _BINARY[type(node.op)](_eval(node.left), _eval(node.right))
        if isinstance(value, complex):
            raise ExpressionError(f"{ast.unparse(node)!r} has no real value")
        return value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.Name) and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS:
        if len(node.args) != 1 or node.keywords:
            raise ExpressionError(f"{node.func.id}() takes exactly one argument")
        return FUNCTIONS[node.func.id](_eval(node.args[0]))
    raise ExpressionError(f"unsupported element in expression: {ast.unparse(node)!r}")
