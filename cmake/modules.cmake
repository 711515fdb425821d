# Modules between the twin and the CLI. Each area adds its line here and appends itself to
# STEWARD_CLI_DEPS so the CLI links it.
set(STEWARD_CLI_DEPS "")
