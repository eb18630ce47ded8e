"""The built-in LLM agent of a run: which model each workspace's trails use, one provider per
model, the judge that tools asking the model about the screen get, and the steps it takes.

``--trailblaze-ai-only`` hands it every step, ``--trailblaze-self-heal`` the failed recorded ones;
a step's ``maxRetries: N`` gives it N more attempts. The pytest plugin calls it from its hooks.
"""

from __future__ import annotations

from ..agent import AgentLoop, LlmSpec, Provider, StepRun, make_provider, require_sdk
from ..agent.context_window import ContextWindow
from ..agent.judgement import Judge
from ..agent.prompt import previous_step
from ..agent.spec import DEFAULT_MAX_CALLS
from ..core.errors import AgentFailure, ConfigurationError
from ..core.run.runner import ResolvedStep
from ..core.tooling.context import ToolContext
from ..core.trail.model import Trail
from ..workspace.model import Workspace
from .agent_options import spec_of, workspace_llm, workspace_max_calls, workspace_model
from .settings import AgentSettings


class AgentSteps:
    """Takes agent steps for trails whose model is known: the option's, else their workspace's."""

    def __init__(self, settings: AgentSettings) -> None:
        self.settings = settings
        self._providers: dict[LlmSpec, Provider] = {}
        #: One context window per model: what one step learns of it, the next starts from.
        self._windows: dict[LlmSpec, ContextWindow] = {}
        self._specs: dict[int, LlmSpec | None] = {}

    def spec_for(self, workspace: Workspace | None, *, installed: bool = True) -> LlmSpec | None:
        """The model of a workspace's trails, with the workspace's facts; ``installed`` checks that
        its client library is there (naming the extra when not)."""
        key = id(workspace)
        if key not in self._specs:
            self._specs[key] = self._spec(workspace)
        spec = self._specs[key]
        if spec is not None and installed and self.settings.spec is None:
            require_sdk(spec, "trailblaze.yaml llm.defaults.model")
        return spec

    def _spec(self, workspace: Workspace | None) -> LlmSpec | None:
        given = self.settings.spec
        if given is not None:
            if workspace_llm(workspace).get("models") is None:
                return given
            return spec_of(self.settings, given.name, "--trailblaze-llm", workspace)
        model = workspace_model(workspace)
        if model is None:
            return None
        return spec_of(self.settings, model, "trailblaze.yaml llm.defaults.model", workspace)

    def provider(self, spec: LlmSpec) -> Provider:
        if spec not in self._providers:
            self._providers[spec] = make_provider(spec)
        return self._providers[spec]

    def judge(self, workspace: Workspace | None) -> Judge | None:
        """The judge of tools that ask the model about the screen (``rememberWithAi``...), replayed
        or not; None without a model (a bad one is said by the first step that needs it)."""
        try:
            spec = self.spec_for(workspace, installed=False)
        except ConfigurationError:
            return None
        if spec is None:
            return None

        def connect() -> Provider:
            return self.provider(self.spec_for(workspace) or spec)

        return Judge(connect, spec.name, spec.screenshots, spec.forced_tools, price=spec.price)

    def take_step(
        self, spec: LlmSpec, step: ResolvedStep, context: ToolContext, trail: Trail,
        workspace: Workspace | None, runs: list[StepRun],
    ) -> StepRun | None:  # fmt: skip
        """Do ``step`` with the model of ``spec``; every attempt's run is added to ``runs``."""
        calls = self.settings.max_calls or workspace_max_calls(workspace) or DEFAULT_MAX_CALLS
        context_text = trail.config.context
        window = self._windows.setdefault(spec, ContextWindow(spec.context_tokens))
        loop = AgentLoop(
            self.provider(spec), calls, spec.screenshots, context_text, spec.forced_tools, window=window
        )
        previous = previous_step(trail, step, runs)
        attempts = (step.step.max_retries or 0) + 1  # `maxRetries: N` gives the agent N more attempts
        for attempt in range(1, attempts + 1):
            try:
                run = loop.run(step, context, previous)
            except AgentFailure as exc:
                exc.run.price = spec.price
                runs.append(exc.run)
                if attempt == attempts:
                    if attempts > 1:
                        exc.args = (f"{exc.args[0]}\n  attempts: {attempts} (maxRetries: {attempts - 1})",)
                    raise
                continue
            run.price = spec.price
            runs.append(run)
            return run
        return None

    def close(self) -> None:
        for provider in self._providers.values():
            closer = getattr(provider, "close", None)
            if closer is not None:
                closer()
        self._providers.clear()
