"""Every problem the trail loader reports: where (``path:line:col``), what, and how to fix it.

Each case is a small inline trail; the expected position is the token the author must edit.
"""

from __future__ import annotations

import textwrap

import pytest

from pytest_trailblaze.core.errors import Problem, TrailLoadError
from pytest_trailblaze.core.trail.parse import load_trail, parse_trail

PATH = "t.trail.yaml"


def problems_of(text: str) -> list[Problem]:
    with pytest.raises(TrailLoadError) as info:
        parse_trail(textwrap.dedent(text).lstrip("\n"), PATH)
    assert info.value.problems, "a TrailLoadError must carry its problems"
    return info.value.problems


def only_problem(text: str) -> Problem:
    found = problems_of(text)
    assert len(found) == 1, "\n".join(p.format() for p in found)
    return found[0]


def check(problem: Problem, where: str, what: tuple[str, ...], fix: tuple[str, ...] = ()) -> None:
    """``where`` is ``line:col``; ``what``/``fix`` are fragments that must appear in those parts."""
    assert str(problem.span) == f"{PATH}:{where}", problem.format()
    for word in what:
        assert word in problem.what, problem.format()
    assert problem.fix, f"every problem says how to fix it:\n{problem.format()}"
    for word in fix:
        assert word in problem.fix, problem.format()


# (id, trail text, line:col, words of `what`, words of `fix`) for files with exactly one problem.
SINGLE_PROBLEM_CASES = [
    # --- the file as a whole ---------------------------------------------------------------
    (
        "yaml-bad-indent",
        """
        trail:
          - step: a
            recording: b
              web: []
        """,
        "4:10",
        ("malformed YAML", "mapping values are not allowed"),
        ("indentation",),
    ),
    (
        "yaml-unclosed-flow-map",
        """
        trail:
          - step: x
            recording:
              web:
                - web_type: {text: hello
          - step: y
        """,
        "6:9",
        ("malformed YAML", "flow mapping"),
        ("quoting",),
    ),
    (
        "yaml-tab-indent",
        "trail:\n\t- step: a\n",
        "2:1",
        ("malformed YAML", "cannot start any token"),
        (),
    ),
    ("empty-file", "", "1:1", ("empty",), ("trail:",)),
    ("comment-only-file", "# nothing here\n", "1:1", ("empty",), ("trail:",)),
    ("root-scalar", "hello\n", "1:1", ("must be a mapping", "or a list", "not a string"), ("config:",)),
    (
        "unknown-root-key",
        """
        config: {}
        trial:
          - step: x
        """,
        "2:1",
        ("unknown key 'trial'", "trail file"),
        ("did you mean 'trail'?",),
    ),
    ("missing-trail", "{}\n", "1:1", ("missing `trail:`",), ("add `trail:`",)),
    (
        "trailhead-only",
        """
        trailhead:
          step: Open the app
        """,
        "1:1",
        ("trailhead without `trail:`",),
        ("add `trail:`",),
    ),
    ("trail-scalar", "trail: x\n", "1:8", ("`trail:` must be a list", "not a string"), ("- step:",)),
    ("trail-null", "trail:\n", "1:7", ("`trail:` must be a list", "not null"), ("- step:",)),
    ("trail-mapping", "trail: {step: x}\n", "1:8", ("`trail:` must be a list", "not a mapping"), ()),
    ("trail-empty", "trail: []\n", "1:8", ("`trail:` has no steps",), ("at least one",)),
    # --- steps ---------------------------------------------------------------------------------
    (
        "step-not-mapping",
        """
        trail:
          - just some text
        """,
        "2:5",
        ("a step must be a mapping", "not a string"),
        ("- step:",),
    ),
    (
        "unknown-step-key",
        """
        trail:
          - step: x
            foo: 1
        """,
        "3:5",
        ("unknown key 'foo' in a step",),
        ("remove 'foo'",),
    ),
    (
        "misspelled-step-key",
        """
        trail:
          - step: x
            recordings: {web: []}
        """,
        "3:5",
        ("unknown key 'recordings'",),
        ("did you mean 'recording'?",),
    ),
    (
        "classifier-at-step-level",
        """
        trail:
          - step: x
            android-phone:
              - pressBack: {}
        """,
        "3:5",
        ("unexpected step-level key 'android-phone'",),
        ("recording:", "android-phone"),
    ),
    (
        "step-and-verify",
        """
        trail:
          - step: x
            verify: y
        """,
        "2:5",
        ("both `step:` and `verify:`",),
        ("split",),
    ),
    (
        "neither-step-nor-verify",
        """
        trail:
          - recording: {web: []}
        """,
        "2:5",
        ("needs `step:` or `verify:`",),
        ("add `step:",),
    ),
    (
        "empty-step-text",
        """
        trail:
          - step: ""
        """,
        "2:11",
        ("`step:` is empty",),
        ("plain words",),
    ),
    (
        "blank-verify-text",
        """
        trail:
          - verify: "   "
        """,
        "2:13",
        ("`verify:` is empty",),
        ("plain words",),
    ),
    (
        "null-step-text",
        """
        trail:
          - step:
        """,
        "2:10",
        ("`step:` must be text", "not null"),
        ("string",),
    ),
    (
        "step-text-mapping",
        """
        trail:
          - step: {a: b}
        """,
        "2:11",
        ("`step:` must be text", "not a mapping"),
        (),
    ),
    (
        "recording-not-mapping",
        """
        trail:
          - step: x
            recording: [pressBack]
        """,
        "3:16",
        ("`recording:` must be a mapping", "not a list"),
        ("web: [...]",),
    ),
    (
        "recording-value-mapping",
        """
        trail:
          - step: x
            recording:
              web: {web_click: {ref: e1}}
        """,
        "4:12",
        ("the recording for 'web' must be a list", "not a mapping"),
        ("- toolName:", "[]"),
    ),
    (
        "recording-value-scalar",
        """
        trail:
          - step: x
            recording:
              web: web_click
        """,
        "4:12",
        ("the recording for 'web' must be a list", "not a string"),
        (),
    ),
    (
        "recording-value-null",
        """
        trail:
          - step: x
            recording:
              web:
        """,
        "4:11",
        ("the recording for 'web' must be a list", "not null"),
        ("[]",),
    ),
    (
        "classifier-typo",
        """
        trail:
          - step: x
            recording:
              andriod-phone: []
        """,
        "4:7",
        ("unknown device classifier 'andriod-phone'",),
        ("did you mean 'android-phone'?",),
    ),
    (
        "classifier-upper-case",
        """
        trail:
          - step: x
            recording:
              Web: []
        """,
        "4:7",
        ("unknown device classifier 'Web'",),
        ("did you mean 'web'?",),
    ),
    (
        "classifier-not-a-platform",
        """
        trail:
          - step: x
            recording:
              windows-desktop: []
        """,
        "4:7",
        ("unknown device classifier 'windows-desktop'",),
        (),
    ),
    (
        "classifier-underscore",
        """
        trail:
          - step: x
            recording:
              android_phone: []
        """,
        "4:7",
        ("unknown device classifier 'android_phone'",),
        ("android-phone",),
    ),
    (
        "recordable-string",
        """
        trail:
          - step: x
            recordable: "no"
        """,
        "3:17",
        ("`recordable:` must be true or false",),
        ("recordable: false",),
    ),
    (
        "recordable-number",
        """
        trail:
          - step: x
            recordable: 0
        """,
        "3:17",
        ("`recordable:` must be true or false",),
        (),
    ),
    (
        "recordable-false-with-recording",
        """
        trail:
          - step: x
            recordable: false
            recording:
              web: []
              android-phone:
                - pressBack: {}
        """,
        "2:5",
        ("`recordable: false` conflicts with the recording for 'android-phone'",),
        ("remove the recording", "remove `recordable: false`"),
    ),
    # --- tool calls ------------------------------------------------------------------------------
    (
        "tool-call-bare-string",
        """
        trail:
          - step: x
            recording:
              android:
                - pressBack
        """,
        "5:11",
        ("tool call 'pressBack' must be a single-key map",),
        ("- pressBack: {}",),
    ),
    (
        "tool-call-two-keys",
        """
        trail:
          - step: x
            recording:
              web:
                - web_click: {ref: e1}
                  ref: e2
        """,
        "5:11",
        ("exactly one key", "found 2: web_click, ref"),
        ("indent the arguments under the tool name",),
    ),
    (
        "tool-call-empty-map",
        """
        trail:
          - step: x
            recording:
              web:
                - {}
        """,
        "5:11",
        ("exactly one key", "found 0"),
        (),
    ),
    (
        "tool-call-null-item",
        """
        trail:
          - step: x
            recording:
              web:
                -
        """,
        "5:10",
        ("a tool call must be a mapping", "not null"),
        ("- toolName:",),
    ),
    (
        "tool-call-list-item",
        """
        trail:
          - step: x
            recording:
              web:
                - [web_click]
        """,
        "5:11",
        ("a tool call must be a mapping", "not a list"),
        ("- toolName:",),
    ),
    (
        "scalar-shorthand-args",
        """
        trail:
          - step: x
            recording:
              android:
                - assertVisible: "Sign in"
        """,
        "5:26",
        ("arguments of 'assertVisible' must be a mapping", "not a string"),
        ("- assertVisible: {argName: value}", "{}"),
    ),
    (
        "list-args",
        """
        trail:
          - step: x
            recording:
              android:
                - tapOnPoint: [10, 20]
        """,
        "5:23",
        ("arguments of 'tapOnPoint' must be a mapping", "not a list"),
        ("- tapOnPoint: {argName: value}",),
    ),
    (
        "tool-name-with-space",
        """
        trail:
          - step: x
            recording:
              web:
                - "web click": {}
        """,
        "5:11",
        ("'web click' is not a valid tool name",),
        ("registered name",),
    ),
    (
        "tool-name-with-dot",
        """
        trail:
          - step: x
            recording:
              web:
                - web.click: {}
        """,
        "5:11",
        ("'web.click' is not a valid tool name",),
        (),
    ),
    (
        "tool-name-too-long",
        f"""
        trail:
          - step: x
            recording:
              web:
                - {"t" * 65}: {{}}
        """,
        "5:11",
        ("is not a valid tool name",),
        (),
    ),
    (
        "malformed-args-token-arithmetic",
        """
        trail:
          - step: x
            recording:
              web:
                - web_type: {ref: e1, text: "{{args.count + 1}}"}
        """,
        "5:37",
        ("malformed args token '{{args.count + 1}}'", "'web_type.text'"),
        ("reference it by path",),
    ),
    (
        "malformed-args-token-filter-nested",
        """
        trail:
          - step: x
            recording:
              web:
                - web_type:
                    ref: e1
                    text:
                      - "${args.name | upper}"
        """,
        "8:15",
        ("malformed args token '${args.name | upper}'", "'web_type.text'"),
        (),
    ),
    # --- trailhead ---------------------------------------------------------------------------------
    (
        "trailhead-recording-list",
        """
        trailhead:
          step: Launch
          recording:
            android:
              - launchApp: {appId: com.example}
        trail:
          - step: x
        """,
        "5:7",
        ("trailhead recording for 'android' must be one tool call map, not a list",),
        ("android: {toolName: {...}}",),
    ),
    (
        "trailhead-two-tools",
        """
        trailhead:
          step: Launch
          recording:
            web:
              web_navigate: {url: "https://example.test"}
              web_click: {ref: e1}
        trail:
          - step: x
        """,
        "5:7",
        ("trailhead recording for 'web' holds 2 tool calls", "at most one"),
        ("first step",),
    ),
    (
        "trailhead-bare-string",
        """
        trailhead: myapp_freshInstall
        trail:
          - step: x
        """,
        "1:12",
        ("trailhead shorthand string is only valid in legacy v1",),
        ("step:", "recording:"),
    ),
    (
        "trailhead-no-step",
        """
        trailhead:
          recording:
            web: {web_navigate: {url: "https://example.test"}}
        trail:
          - step: x
        """,
        "2:3",
        ("trailhead needs `step:`",),
        ("add `step:",),
    ),
    (
        "trailhead-unknown-key",
        """
        trailhead:
          step: Launch
          recordable: false
        trail:
          - step: x
        """,
        "3:3",
        ("unknown key 'recordable' in a trailhead",),
        (),
    ),
    (
        "trailhead-list",
        """
        trailhead:
          - step: Launch
        trail:
          - step: x
        """,
        "2:3",
        ("`trailhead:` must be a mapping", "not a list"),
        ("step:",),
    ),
    (
        "trailhead-recording-not-mapping",
        """
        trailhead:
          step: Launch
          recording: [launchApp]
        trail:
          - step: x
        """,
        "3:14",
        ("trailhead `recording:` must be a mapping", "not a list"),
        ("web: {toolName: {...}}",),
    ),
    (
        "trailhead-bad-classifier",
        """
        trailhead:
          step: Launch
          recording:
            ipod: {launchApp: {appId: com.example}}
        trail:
          - step: x
        """,
        "4:5",
        ("unknown device classifier 'ipod'",),
        (),
    ),
    (
        "trailhead-tool-bare-string",
        """
        trailhead:
          step: Launch
          recording:
            android: launchApp
        trail:
          - step: x
        """,
        "4:14",
        ("tool call 'launchApp' must be a single-key map",),
        ("- launchApp: {}",),
    ),
    (
        "trailhead-empty-step",
        """
        trailhead:
          step: ""
        trail:
          - step: x
        """,
        "2:9",
        ("`step:` is empty",),
        (),
    ),
    # --- config --------------------------------------------------------------------------------------
    (
        "config-not-mapping",
        """
        config: [id]
        trail:
          - step: x
        """,
        "1:9",
        ("config must be a mapping", "not a list"),
        ("config:",),
    ),
    (
        "config-unknown-key",
        """
        config:
          titel: Checkout
        trail:
          - step: x
        """,
        "2:3",
        ("unknown key 'titel' in config",),
        ("did you mean 'title'?",),
    ),
    (
        "config-driver-is-v1-only",
        """
        config:
          driver: PLAYWRIGHT_NATIVE
        trail:
          - step: x
        """,
        "2:3",
        ("unknown key 'driver' in config",),
        ("remove 'driver'",),
    ),
    (
        "config-text-field-list",
        """
        config:
          id: [a, b]
        trail:
          - step: x
        """,
        "2:7",
        ("config.id must be text", "not a list"),
        (),
    ),
    (
        "config-devices-driver-typo",
        """
        config:
          devices:
            web: PLAYWRIGHT_NATIV
        trail:
          - step: x
        """,
        "3:10",
        ("unknown driver 'PLAYWRIGHT_NATIV'",),
        ("did you mean 'PLAYWRIGHT_NATIVE'?",),
    ),
    (
        "config-devices-driver-lower-typo",
        """
        config:
          devices:
            ios-iphone: ios_hots
        trail:
          - step: x
        """,
        "3:17",
        ("unknown driver 'ios_hots'",),
        ("did you mean 'IOS_HOST'?",),
    ),
    (
        "config-devices-driver-unknown",
        """
        config:
          devices:
            android: SELENIUM
        trail:
          - step: x
        """,
        "3:14",
        ("unknown driver 'SELENIUM'",),
        ("known driver",),
    ),
    (
        "config-devices-bad-classifier",
        """
        config:
          devices:
            andriod: ANDROID_ONDEVICE_ACCESSIBILITY
        trail:
          - step: x
        """,
        "3:5",
        ("unknown device classifier 'andriod'",),
        ("did you mean 'android'?",),
    ),
    (
        "config-devices-driver-list",
        """
        config:
          devices:
            web: [PLAYWRIGHT_NATIVE]
        trail:
          - step: x
        """,
        "3:10",
        ("the driver for 'web' must be text", "not a list"),
        (),
    ),
    (
        "config-devices-list",
        """
        config:
          devices: [web]
        trail:
          - step: x
        """,
        "2:12",
        ("config.devices must be a mapping", "not a list"),
        ("<classifier>: <value>",),
    ),
    (
        "config-tags-scalar",
        """
        config:
          tags: smoke
        trail:
          - step: x
        """,
        "2:9",
        ("config.tags must be a list", "not a string"),
        ("tags: [smoke, checkout]",),
    ),
    (
        "config-tag-not-text",
        """
        config:
          tags: [smoke, [nested]]
        trail:
          - step: x
        """,
        "2:17",
        ("a tag must be text", "not a list"),
        (),
    ),
    (
        "config-skip-scalar",
        """
        config:
          skip: flaky
        trail:
          - step: x
        """,
        "2:9",
        ("config.skip must be a mapping", "not a string"),
        ("web: ...",),
    ),
    (
        "config-skip-reason-list",
        """
        config:
          skip:
            web: [flaky]
        trail:
          - step: x
        """,
        "3:10",
        ("the skip reason for 'web' must be text", "not a list"),
        (),
    ),
    (
        "config-memory-list",
        """
        config:
          memory: [email]
        trail:
          - step: x
        """,
        "2:11",
        ("config.memory must be a mapping", "not a list"),
        ("key: value",),
    ),
    (
        "config-memory-value-list",
        """
        config:
          memory:
            email: [a, b]
        trail:
          - step: x
        """,
        "3:12",
        ("config.memory.email must be text", "not a list"),
        (),
    ),
    (
        "config-memory-value-null",
        """
        config:
          memory:
            email:
        trail:
          - step: x
        """,
        "3:11",
        ("config.memory.email must be text", "not null"),
        (),
    ),
    (
        "config-metadata-scalar",
        """
        config:
          metadata: handwritten
        trail:
          - step: x
        """,
        "2:13",
        ("config.metadata must be a mapping", "not a string"),
        (),
    ),
    # --- config.args -----------------------------------------------------------------------------------
    (
        "args-not-mapping",
        """
        config:
          args: [name]
        trail:
          - step: x
        """,
        "2:9",
        ("config.args must be a mapping", "not a list"),
        ("args: {name: string}",),
    ),
    (
        "args-bad-name",
        """
        config:
          args:
            1st-name: string
        trail:
          - step: x
        """,
        "3:5",
        ("invalid arg name '1st-name'",),
        ("rename",),
    ),
    (
        "args-unknown-type-compact",
        """
        config:
          args:
            name: strng
        trail:
          - step: x
        """,
        "3:11",
        ("unknown arg type 'strng'",),
        ("did you mean 'string'?",),
    ),
    (
        "args-unknown-type-full",
        """
        config:
          args:
            count: {type: int, default: 3}
        trail:
          - step: x
        """,
        "3:19",
        ("unknown arg type 'int'",),
        (),
    ),
    (
        "args-type-not-text",
        """
        config:
          args:
            name: {type: [string]}
        trail:
          - step: x
        """,
        "3:18",
        ("an arg type must be text", "not a list"),
        ("arg types",),
    ),
    (
        "args-required-true-with-default",
        """
        config:
          args:
            retries: {type: integer, required: true, default: 3}
        trail:
          - step: x
        """,
        "3:40",
        ("arg 'retries' is required but has a default",),
        ("remove `required: true` or the default",),
    ),
    (
        "args-required-yes-is-text",  # YAML 1.2: `yes` is a word, not a boolean
        """
        config:
          args:
            retries: {type: integer, required: yes, default: 3}
        trail:
          - step: x
        """,
        "3:40",
        ("'required' of arg 'retries' must be true or false",),
        ("required: true",),
    ),
    (
        "args-required-false-without-default",
        """
        config:
          args:
            name: {type: string, required: false}
        trail:
          - step: x
        """,
        "3:36",
        ("arg 'name' is optional but has no default",),
        ("add `default: ...` to 'name'", "remove `required: false`"),
    ),
    (
        "args-required-not-bool",
        """
        config:
          args:
            name: {type: string, required: "true", default: x}
        trail:
          - step: x
        """,
        "3:36",
        ("'required' of arg 'name' must be true or false",),
        ("required: true",),
    ),
    (
        "args-default-null",
        """
        config:
          args:
            name: {type: string, default: null}
        trail:
          - step: x
        """,
        "3:35",
        ("the default of arg 'name' is null",),
        ("give a value",),
    ),
    (
        "args-default-integer-wrong-type",
        """
        config:
          args:
            retries: {type: integer, default: three}
        trail:
          - step: x
        """,
        "3:39",
        ("the default of arg 'retries' is a string", "declared integer"),
        ("change the default", "type: string"),
    ),
    (
        "args-default-integer-float",
        """
        config:
          args:
            retries: {type: integer, default: 1.5}
        trail:
          - step: x
        """,
        "3:39",
        ("the default of arg 'retries' is a number", "declared integer"),
        ("type: number",),
    ),
    (
        "args-default-boolean-wrong-type",
        """
        config:
          args:
            dark: {type: boolean, default: "maybe"}
        trail:
          - step: x
        """,
        "3:36",
        ("the default of arg 'dark' is a string", "declared boolean"),
        (),
    ),
    (
        "args-default-string-list",
        """
        config:
          args:
            name: {type: string, default: [a, b]}
        trail:
          - step: x
        """,
        "3:35",
        ("the default of arg 'name' is a list", "declared string"),
        ("type: array",),
    ),
    (
        "args-default-array-scalar",
        """
        config:
          args:
            items: {type: array, default: x}
        trail:
          - step: x
        """,
        "3:35",
        ("the default of arg 'items' is a string", "declared array"),
        (),
    ),
    (
        "args-default-object-list",
        """
        config:
          args:
            user: {type: object, default: [a]}
        trail:
          - step: x
        """,
        "3:35",
        ("the default of arg 'user' is a list", "declared object"),
        (),
    ),
    (
        "args-unknown-declaration-key",
        """
        config:
          args:
            name: {type: string, descripton: Full name}
        trail:
          - step: x
        """,
        "3:26",
        ("unknown key 'descripton' in the declaration of arg 'name'",),
        ("did you mean 'description'?",),
    ),
    (
        "args-declaration-list",
        """
        config:
          args:
            name: [string]
        trail:
          - step: x
        """,
        "3:11",
        ("the declaration of arg 'name' must be a mapping", "not a list"),
        ("type: string",),
    ),
    (
        "args-declaration-null",
        """
        config:
          args:
            name:
        trail:
          - step: x
        """,
        "3:10",
        ("the declaration of arg 'name' must be a mapping", "not null"),
        (),
    ),
    (
        "args-description-not-text",
        """
        config:
          args:
            name: {type: string, description: [a], default: x}
        trail:
          - step: x
        """,
        "3:39",
        ("the description of arg 'name' must be text", "not a list"),
        (),
    ),
    # --- keys ------------------------------------------------------------------------------------------
    (
        "duplicate-config-key",
        """
        config:
          id: a
          id: b
        trail:
          - step: x
        """,
        "3:3",
        ("duplicate key 'id'",),
        ("remove one of them",),
    ),
    (
        "duplicate-step-key",
        """
        trail:
          - step: x
            step: y
        """,
        "3:5",
        ("duplicate key 'step'",),
        (),
    ),
    (
        "duplicate-tool-arg",
        """
        trail:
          - step: x
            recording:
              web:
                - web_click: {ref: e1, ref: e2}
        """,
        "5:32",
        ("duplicate key 'ref'",),
        (),
    ),
    (
        "duplicate-root-key",
        """
        trail:
          - step: x
        trail:
          - step: y
        """,
        "3:1",
        ("duplicate key 'trail'",),
        (),
    ),
    (
        "non-scalar-key",
        """
        trail:
          - step: x
            ? [a, b]
            : 1
        """,
        "3:7",
        ("a key must be a plain word", "not a list"),
        (),
    ),
    (
        "merge-key-not-a-mapping",
        """
        trail:
          - step: x
            recording:
              web:
                - web_type: {<<: text, ref: e1}
        """,
        "5:26",
        ("`<<:` merge key must name a mapping",),
        ("<<: *defaults",),
    ),
    (
        "merge-key-into-itself",
        """
        trail:
          - step: x
            recording:
              web:
                - web_type: &self {<<: *self}
        """,
        "5:21",
        ("`<<:` merge key must name a mapping that does not contain it",),
        (),
    ),
    # --- legacy v1 -------------------------------------------------------------------------------------
    (
        "v1-unknown-item",
        """
        - config: {id: x}
        - prompt:
            - step: a
        """,
        "2:3",
        ("unknown v1 item 'prompt'",),
        ("did you mean 'prompts'?",),
    ),
    (
        "v1-unknown-item-no-hint",
        """
        - steps:
            - step: a
        """,
        "1:3",
        ("unknown v1 item 'steps'",),
        (),
    ),
    (
        "v1-maestro-block",
        """
        - maestro:
            - tapOn: Sign in
        """,
        "1:3",
        ("`- maestro:` blocks are not supported",),
        ("- tools:",),
    ),
    (
        "v1-config-not-first",
        """
        - prompts:
            - step: a
        - config:
            id: x
        """,
        "3:3",
        ("`- config:` must be the first item",),
        ("top of the file",),
    ),
    (
        "v1-two-trailheads",
        """
        - trailhead: app_launch
        - trailhead: app_login
        - prompts:
            - step: a
        """,
        "2:3",
        ("only one `- trailhead:` is allowed", "before any prompts or tools"),
        ("single trailhead",),
    ),
    (
        "v1-trailhead-after-prompts",
        """
        - prompts:
            - step: a
        - trailhead: app_launch
        """,
        "3:3",
        ("only one `- trailhead:` is allowed",),
        (),
    ),
    (
        "v1-trailhead-after-tools",
        """
        - tools:
            - pressBack: {}
        - trailhead: app_launch
        """,
        "3:3",
        ("only one `- trailhead:` is allowed",),
        (),
    ),
    (
        "v1-item-two-keys",
        """
        - config: {}
          prompts: []
        """,
        "1:3",
        ("each item of a v1 trail is a single-key map",),
        ("- prompts:",),
    ),
    (
        "v1-item-scalar",
        """
        - prompts
        """,
        "1:3",
        ("each item of a v1 trail is a single-key map",),
        (),
    ),
    (
        "v1-recording-without-tools",
        """
        - prompts:
            - step: a
              recording: {}
        """,
        "3:18",
        ("v1 `recording:` needs a `tools:` list",),
        ("recording: {tools: []}",),
    ),
    (
        "v1-recording-list",
        """
        - prompts:
            - step: a
              recording:
                - pressBack: {}
        """,
        "4:9",
        ("v1 `recording:` must be a mapping", "not a list"),
        ("tools: [...]",),
    ),
    (
        "v1-recording-tools-not-list",
        """
        - prompts:
            - step: a
              recording:
                tools: {pressBack: {}}
        """,
        "4:16",
        ("`recording.tools` must be a list", "not a mapping"),
        (),
    ),
    (
        "v1-step-unknown-key",
        """
        - prompts:
            - step: a
              recordings: {tools: []}
        """,
        "3:7",
        ("unknown key 'recordings' in a v1 step",),
        ("did you mean 'recording'?",),
    ),
    (
        "v1-step-classifier-key",
        """
        - prompts:
            - step: a
              web: []
        """,
        "3:7",
        ("unknown key 'web' in a v1 step",),
        (),
    ),
    (
        "v1-step-both",
        """
        - prompts:
            - step: a
              verify: b
        """,
        "2:7",
        ("both `step:` and `verify:`",),
        (),
    ),
    (
        "v1-step-neither",
        """
        - prompts:
            - recording: {tools: []}
        """,
        "2:7",
        ("needs `step:` or `verify:`",),
        (),
    ),
    (
        "v1-step-empty-text",
        """
        - prompts:
            - verify: ''
        """,
        "2:15",
        ("`verify:` is empty",),
        (),
    ),
    (
        "v1-step-not-mapping",
        """
        - prompts:
            - Open the app
        """,
        "2:7",
        ("a prompt step must be a mapping", "not a string"),
        ("- step:",),
    ),
    (
        "v1-step-recordable-false-with-tools",
        """
        - prompts:
            - step: a
              recordable: false
              recording:
                tools:
                  - pressBack: {}
        """,
        "2:7",
        ("`recordable: false` conflicts with the recording",),
        (),
    ),
    (
        "v1-step-max-retries",
        """
        - prompts:
            - step: a
              maxRetries: lots
        """,
        "3:19",
        ("`maxRetries:` must be a whole number",),
        ("maxRetries: 2",),
    ),
    (
        "v1-prompts-not-list",
        """
        - prompts:
            step: a
        """,
        "2:5",
        ("`- prompts:` must be a list", "not a mapping"),
        ("- step:",),
    ),
    (
        "v1-tools-not-list",
        """
        - tools: pressBack
        """,
        "1:10",
        ("`- tools:` must be a list", "not a string"),
        ("- toolName:",),
    ),
    (
        "v1-tools-bare-string",
        """
        - tools:
            - pressBack
        """,
        "2:7",
        ("tool call 'pressBack' must be a single-key map",),
        (),
    ),
    (
        "v1-tools-reserved-name",
        """
        - tools:
            - prompts: {}
        """,
        "2:7",
        ("'prompts' cannot be a tool name",),
        ("nested one level too deep",),
    ),
    (
        "v1-trailhead-unknown-key",
        """
        - trailhead:
            step: Launch
            recording: {tools: []}
        """,
        "3:5",
        ("unknown key 'recording' in a v1 trailhead",),
        (),
    ),
    (
        "v1-trailhead-empty",
        """
        - trailhead: {}
        """,
        "1:14",
        ("a v1 trailhead needs `step:` or `tools:`",),
        ("launchApp",),
    ),
    (
        "v1-trailhead-bad-tool-name",
        """
        - trailhead: "launch app"
        """,
        "1:14",
        ("'launch app' is not a valid tool name",),
        (),
    ),
    (
        "v1-trailhead-reserved-name",
        """
        - trailhead: config
        """,
        "1:14",
        ("'config' cannot be a tool name",),
        (),
    ),
    (
        "v1-trailhead-list",
        """
        - trailhead:
            - launchApp: {}
        """,
        "2:5",
        ("`- trailhead:` must be a mapping", "not a list"),
        ("tool name",),
    ),
    (
        "v1-config-devices-key",
        """
        - config:
            devices: {web: PLAYWRIGHT_NATIVE}
        """,
        "2:5",
        ("unknown key 'devices' in config",),
        (),
    ),
    (
        "v1-config-source-unknown-key",
        """
        - config:
            source: {type: HANDWRITTEN, why: because}
        """,
        "2:33",
        ("unknown key 'why' in config.source",),
        (),
    ),
    (
        "v1-config-source-scalar",
        """
        - config:
            source: HANDWRITTEN
        """,
        "2:13",
        ("config.source must be a mapping", "not a string"),
        ("source: {type: HANDWRITTEN",),
    ),
    (
        "v1-config-unknown-driver",
        """
        - config:
            id: demo
            driver: PLAYWRIGHT_NATIV
        """,
        "3:13",
        ("unknown driver 'PLAYWRIGHT_NATIV'",),
        ("did you mean 'PLAYWRIGHT_NATIVE'?",),
    ),
]


@pytest.mark.parametrize(
    ("text", "where", "what", "fix"),
    [pytest.param(*case[1:], id=case[0]) for case in SINGLE_PROBLEM_CASES],
)
def test_single_problem(text: str, where: str, what: tuple[str, ...], fix: tuple[str, ...]) -> None:
    check(only_problem(text), where, what, fix)


@pytest.mark.parametrize("name", ["config", "prompts", "tools", "trailhead"])
def test_reserved_tool_names(name: str) -> None:
    problem = only_problem(
        f"""
        trail:
          - step: x
            recording:
              web:
                - {name}: {{}}
        """
    )
    check(problem, "5:11", (f"'{name}' cannot be a tool name",), ("nested one level too deep",))
    assert "reserved" in problem.why


def test_formatted_error_is_compiler_style() -> None:
    with pytest.raises(TrailLoadError) as info:
        parse_trail("trail:\n  - step: x\n    foo: 1\n", "dir/checkout.trail.yaml")
    assert str(info.value) == (
        "dir/checkout.trail.yaml:3:5: unknown key 'foo' in a step\n"
        "  why: a step allows only: step, verify, recording, recordable, maxRetries\n"
        "  fix: remove 'foo'"
    )


def test_all_problems_of_a_file_are_reported_together_sorted_by_line() -> None:
    text = """
    config:
      devices:
        web: PLAYWRIGHT_NATIV
    trail:
      - verify: The cart is empty
        recording:
          web:
            - web_click
      - step: Open the menu
        androd: []
      - step: Pay
        maxRetries: -1
    """
    found = problems_of(text)
    assert [(p.span.line, p.span.col) for p in found] == [(3, 10), (8, 11), (10, 5), (12, 17)]
    assert "unknown driver 'PLAYWRIGHT_NATIV'" in found[0].what
    assert "tool call 'web_click' must be a single-key map" in found[1].what
    assert "unknown key 'androd' in a step" in found[2].what
    assert "`maxRetries:` must be a whole number" in found[3].what
    with pytest.raises(TrailLoadError) as info:
        parse_trail(textwrap.dedent(text).lstrip("\n"), PATH)
    lines = str(info.value).splitlines()
    assert lines[0] == "4 problems found:"
    heads = [line for line in lines if line.startswith(PATH)]
    assert heads == [p.format().splitlines()[0] for p in found]


def test_problems_from_config_steps_and_trailhead_are_collected_in_one_pass() -> None:
    found = problems_of(
        """
        trail:
          - step: Pay
            recordable: maybe
        config:
          idd: demo
        trailhead:
          verify: Launch
        """
    )
    assert [str(p.span) for p in found] == [
        f"{PATH}:3:17",
        f"{PATH}:5:3",
        f"{PATH}:7:3",
        f"{PATH}:7:3",
    ]
    whats = " | ".join(p.what for p in found)
    assert "trailhead cannot be `verify:`" in whats
    assert "trailhead needs `step:`" in whats


def test_unknown_root_key_also_reports_missing_trail() -> None:
    found = problems_of("steps:\n  - step: x\n")
    assert [p.what for p in found] == ["unknown key 'steps' in a trail file", "missing `trail:`"]
    assert {str(p.span) for p in found} == {f"{PATH}:1:1"}
    assert found[0].fix == "remove 'steps'"


def test_unreadable_file_is_a_problem_at_its_first_line(tmp_path) -> None:
    missing = tmp_path / "gone.trail.yaml"
    with pytest.raises(TrailLoadError) as info:
        load_trail(missing, display_path="trails/gone.trail.yaml")
    (problem,) = info.value.problems
    assert str(problem.span) == "trails/gone.trail.yaml:1:1"
    assert problem.what == "cannot read gone.trail.yaml: No such file or directory"
    assert str(info.value).startswith("trails/gone.trail.yaml:1:1: cannot read gone.trail.yaml")
    assert "exists" in problem.fix


def test_non_utf8_file_is_a_problem(tmp_path) -> None:
    path = tmp_path / "latin1.trail.yaml"
    path.write_bytes("trail:\n  - step: caf\xe9\n".encode("latin-1"))
    with pytest.raises(TrailLoadError) as info:
        load_trail(path)
    assert info.value.problems[0].what == "cannot read latin1.trail.yaml: it is not UTF-8 text (byte 20)"
    assert info.value.problems[0].fix == "save the file as UTF-8"


def test_several_classifier_mistakes_each_reported() -> None:
    found = problems_of(
        """
        trail:
          - step: x
            recording:
              andriod-phone: []
              ios-iphone: []
              Web: []
        """
    )
    assert [(p.span.line, p.what) for p in found] == [
        (4, "unknown device classifier 'andriod-phone'"),
        (6, "unknown device classifier 'Web'"),
    ]


def test_recordable_false_with_empty_recording_is_fine() -> None:
    trail = parse_trail("trail:\n  - step: x\n    recordable: false\n    recording:\n      web: []\n", PATH)
    step = trail.steps[0]
    assert step.recordable is False
    assert step.recording == {"web": ()}


@pytest.mark.parametrize("value", ["-1", "two", "1.5", "true", "[1]"])
def test_bad_max_retries(value: str) -> None:
    problem = only_problem(f"trail:\n  - step: x\n    maxRetries: {value}\n")
    check(problem, "3:17", ("`maxRetries:` must be a whole number of 0 or more",), ("maxRetries:",))


def test_well_formed_args_tokens_are_not_problems() -> None:
    trail = parse_trail(
        textwrap.dedent(
            """
            trail:
              - step: x
                recording:
                  web:
                    - web_type: {text: "{{args.user.email}} ${args.name} {{ args.name }} {{memory.x}}"}
            """
        ),
        PATH,
    )
    assert trail.steps[0].calls()[0].args["text"].startswith("{{args.user.email}}")


def test_several_malformed_tokens_in_one_value_are_each_reported() -> None:
    found = problems_of(
        """
        trail:
          - step: x
            recording:
              web:
                - web_type: {text: "{{args.a + 1}} and {{args.b | upper}}"}
        """
    )
    assert [p.what for p in found] == [
        "malformed args token '{{args.a + 1}}' in 'web_type.text'",
        "malformed args token '{{args.b | upper}}' in 'web_type.text'",
    ]


def test_recursive_alias_is_one_problem_not_a_hang() -> None:
    problem = only_problem(
        """
        trail:
          - step: x
            recording:
              web:
                - web_type: &loop {a: *loop, b: *loop, c: *loop}
        """
    )
    check(problem, "5:21", ("recursive anchor",), ("copy of the value",))


def test_alias_explosion_is_a_problem_not_a_hang() -> None:
    levels = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 8):
        levels.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]")
    text = "\n".join(levels) + "\ntrail:\n  - step: x\n    recording:\n      web:\n        - t: {x: *l7}\n"
    with pytest.raises(TrailLoadError) as info:
        parse_trail(text, PATH)
    assert any("expands to more than" in p.what and p.fix for p in info.value.problems)


def test_shared_alias_without_recursion_is_fine() -> None:
    trail = parse_trail(
        "trail:\n  - step: x\n    recording:\n      web:\n        - t: {a: &l [1, 2], b: *l}\n", PATH
    )
    assert trail.steps[0].calls()[0].args == {"a": [1, 2], "b": [1, 2]}
