"""A step module that does not import (for the factory-import-failure test)."""
import a_module_that_is_not_installed  # noqa: F401


def make():
    return None
