"""Running a trail: the plan of its steps and the runner that replays them (``runner``)."""
