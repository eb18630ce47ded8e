"""Repository-wide pytest set-up: the pytester fixture for the plugin's own tests."""

pytest_plugins = ("pytester",)
