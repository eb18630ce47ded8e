"""The public API: a sorted ``__all__`` of names that import, and one error base for all."""

from __future__ import annotations

import inspect

import pytest_trailblaze


def test_all_is_sorted_and_importable() -> None:
    assert pytest_trailblaze.__all__ == sorted(pytest_trailblaze.__all__)
    for name in pytest_trailblaze.__all__:
        assert hasattr(pytest_trailblaze, name), name


def test_every_public_error_derives_from_one_base() -> None:
    errors = [
        obj
        for name in pytest_trailblaze.__all__
        if inspect.isclass(obj := getattr(pytest_trailblaze, name)) and issubclass(obj, Exception)
    ]
    assert len(errors) >= 10
    assert all(issubclass(e, pytest_trailblaze.TrailblazeError) for e in errors)


def test_failures_of_trails_are_assertion_errors() -> None:
    """pytest reports these as FAILED, not as errors of the test machinery."""
    assert issubclass(pytest_trailblaze.StepFailure, AssertionError)
    assert issubclass(pytest_trailblaze.ToolFailure, AssertionError)
    assert not issubclass(pytest_trailblaze.TrailheadError, AssertionError)
