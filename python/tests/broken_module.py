import this_module_does_not_exist  # noqa: F401  (the worker must report the import failure)
