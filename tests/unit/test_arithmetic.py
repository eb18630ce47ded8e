"""tools/arithmetic.evaluate: exp4j-style expressions for assertMath, and nothing else."""

from __future__ import annotations

import math
import re
import subprocess
import sys

import pytest

from pytest_trailblaze.tools.arithmetic import CONSTANTS, FUNCTIONS, ExpressionError, evaluate


class TestOperators:
    @pytest.mark.parametrize(
        ("expression", "expected"),
        [
            ("1 + 2", 3),
            ("10 - 4", 6),
            ("6 * 7", 42),
            ("7 / 2", 3.5),
            ("1 + 2 * 3", 7),
            ("(1 + 2) * 3", 9),
            ("10 - 4 - 3", 3),
            ("16 / 4 / 2", 2),
            ("7 % 3", 1),
            ("-7 % 3", -1),  # Java's remainder keeps the dividend's sign (exp4j), unlike Python's %
            ("7.5 % 2", 1.5),
            ("-5", -5),
            ("+5", 5),
            ("3 * -2", -6),
            ("--3", 3),
            ("0.1 + 0.2", 0.3),
            ("1e3 + 1", 1001),
            ("  2 * 21  ", 42),
        ],
    )
    def test_arithmetic(self, expression, expected):
        assert evaluate(expression) == pytest.approx(expected)

    @pytest.mark.parametrize(
        ("expression", "expected"),
        [
            ("2 ^ 10", 1024),
            ("2^3^2", 512),  # right-associative, as in exp4j
            ("-2 ^ 2", -4),  # power binds tighter than unary minus
            ("(-2) ^ 2", 4),
            ("2 ^ -1", 0.5),
            ("4 ^ 0.5", 2),
            ("2 * 3 ^ 2", 18),
        ],
    )
    def test_caret_is_power(self, expression, expected):
        assert evaluate(expression) == pytest.approx(expected)

    def test_result_is_a_float(self):
        result = evaluate("1 + 1")
        assert type(result) is float
        assert result == 2.0


class TestFunctionsAndConstants:
    @pytest.mark.parametrize(
        ("expression", "expected"),
        [
            ("abs(-3)", 3),
            ("sqrt(16)", 4),
            ("cbrt(27)", 3),
            ("cbrt(-27)", -3),
            ("floor(2.7)", 2),
            ("floor(-2.5)", -3),
            ("ceil(2.1)", 3),
            ("log(e)", 1),
            ("log10(1000)", 3),
            ("log2(8)", 3),
            ("log1p(0)", 0),
            ("exp(0)", 1),
            ("expm1(0)", 0),
            ("sin(0)", 0),
            ("cos(pi)", -1),
            ("tan(0)", 0),
            ("asin(1)", math.pi / 2),
            ("acos(1)", 0),
            ("atan(1)", math.pi / 4),
            ("sinh(0)", 0),
            ("cosh(0)", 1),
            ("tanh(0)", 0),
            ("signum(-5)", -1),
            ("signum(0)", 0),
            ("signum(2.5)", 1),
            ("sqrt(abs(-16)) + floor(2.9)", 6),
        ],
    )
    def test_functions(self, expression, expected):
        assert evaluate(expression) == pytest.approx(expected)

    def test_every_listed_function_is_callable_with_one_argument(self):
        for name in FUNCTIONS:
            assert isinstance(evaluate(f"{name}(0.5)"), float), name

    @pytest.mark.parametrize(
        ("expression", "expected"),
        [("pi", math.pi), ("π", math.pi), ("e", math.e), ("2 * pi", 2 * math.pi), ("e ^ 2", math.e**2)],
    )
    def test_constants(self, expression, expected):
        assert evaluate(expression) == pytest.approx(expected)

    def test_constants_table(self):
        assert set(CONSTANTS) == {"pi", "π", "e"}


class TestRejected:
    @pytest.mark.parametrize(
        "expression",
        [
            "x + 1",
            "E",
            "PI",
            "math.pi",
            "(1).real",
            "max(1, 2)",
            "min(1)",
            "__import__('os').getcwd()",
            "open('/etc/passwd')",
            "eval('1')",
            "sqrt.__call__(4)",
            "(lambda: 1)()",
            "'a'",
            "True",
            "None",
            "1 < 2",
            "1 if 1 else 2",
            "[1]",
            "(1, 2)",
            "1 // 2",
            "1 << 2",
            "~1",
            "not 1",
            "2j",
        ],
    )
    def test_anything_outside_the_whitelist(self, expression):
        with pytest.raises(ExpressionError, match="unsupported element in expression"):
            evaluate(expression)

    @pytest.mark.parametrize("expression", ["sqrt(1, 2)", "sqrt()", "abs(x=1)"])
    def test_functions_take_exactly_one_argument(self, expression):
        with pytest.raises(ExpressionError, match=r"takes exactly one argument"):
            evaluate(expression)

    @pytest.mark.parametrize("expression", ["", "1 +", "(1", "2 ^^ 3", "import os", "1; 2"])
    def test_syntax_errors(self, expression):
        with pytest.raises(ExpressionError, match="cannot parse"):
            evaluate(expression)

    @pytest.mark.parametrize(
        "expression", ["1 / 0", "5 % 0", "0 ^ -1", "sqrt(-1)", "log(0)", "exp(1000)", "10 ^ 400"]
    )
    def test_math_errors(self, expression):
        with pytest.raises(ExpressionError, match=re.escape(f"cannot evaluate {expression!r}")):
            evaluate(expression)

    def test_expression_error_is_a_value_error(self):
        assert issubclass(ExpressionError, ValueError)

    def test_fractional_power_of_a_negative_number_is_an_expression_error(self):
        """exp4j gives NaN (Java's Math.pow); Python's ** gives a complex number.

        Either way the caller (assertMath) must get an ``ExpressionError`` (or a float), never a
        bare ``TypeError`` from converting a complex number to float.
        """
        try:
            result = evaluate("(-8) ^ (1/3)")
        except ExpressionError:
            return
        assert isinstance(result, float)

    def test_huge_powers_finish_quickly(self):
        """``9^9^9`` is infinity for exp4j's doubles; exact integer powers would run for minutes."""
        code = (
            "from pytest_trailblaze.tools.arithmetic import evaluate, ExpressionError\n"
            "try:\n    print(evaluate('9 ^ 9 ^ 9'))\n"
            "except ExpressionError as exc:\n    print('error', exc)\n"
        )
        try:
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=5)
        except subprocess.TimeoutExpired:
            pytest.fail("evaluate('9 ^ 9 ^ 9') still ran after 5 s")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "inf" or done.stdout.startswith("error cannot evaluate")
