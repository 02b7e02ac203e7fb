"""One module per subcommand: add_arguments(parser) and run(args) -> exit code."""
