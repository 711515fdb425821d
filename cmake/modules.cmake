# Steward's modules, lowest first. Dependencies point one way:
#   model <- place, govern <- twin <- telemetry, health, cost <- server <- cli
# Each module is declared once here with its DEPS; a module may exist before its code does.
# Every module the CLI links is listed in STEWARD_CLI_DEPS.
steward_module(model)
steward_module(place DEPS model)
steward_module(govern DEPS model)
steward_module(telemetry DEPS model)
steward_module(twin DEPS place govern model)
steward_module(health DEPS telemetry model)
steward_module(cost DEPS model)
set(STEWARD_CLI_DEPS twin place govern telemetry health cost model)
