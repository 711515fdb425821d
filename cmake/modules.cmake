# Steward's modules, lowest first. Dependencies point one way:
#   model <- place, govern <- twin <- telemetry <- health <- server <- cli; cost <- server;
#   model <- store <- health, cost, cli (SQLite stores: remediation state, event log, ledger);
#   twin, control, kube <- reclaim <- operate, cli (idle reclaim on the twin and live);
#   twin, control <- tidal <- cli (tidal lending of the serving trough to training);
#   govern <- audit <- twin (tenancy findings of a scenario);
#   model, store <- control <- twin, health, live (the controllers' one interface to a cluster)
#   model <- http <- kube <- kubefront (the twin as a Kubernetes API), live (the client), health
#     (kubectl YAML node lists)
#   live, health, reclaim, tidal, telemetry, control <- operate <- cli (the controllers on a live
#     cluster)
#   live, health, telemetry, twin, govern <- snapshot <- cli (a live cluster as a twin scenario)
#   live, audit <- audit_live <- cli (the tenancy audit of a live cluster)
#   twin, control, store <- rollout <- cli (gated GPU-stack rollouts, twin and live)
# Each module is declared once here with its DEPS; a module may exist before its code does.
# Every module the CLI links is listed in STEWARD_CLI_DEPS.
steward_module(model)
# The XID catalog data file, compiled into the binary so `steward health xid` and the twin work anywhere.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/data/xid_catalog.csv)
file(READ ${PROJECT_SOURCE_DIR}/data/xid_catalog.csv STEWARD_XID_CSV)
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/generated/xid_catalog_data.cc
     CONTENT "// Generated from data/xid_catalog.csv by CMake. Do not edit.
#include <string_view>
namespace steward::model {
std::string_view BuiltinXidCatalogCsv() {
  static constexpr char kCsv[] = R\"steward_xid(@STEWARD_XID_CSV@)steward_xid\";
  return {kCsv, sizeof(kCsv) - 1};
}
}  // namespace steward::model
" @ONLY)
target_sources(steward_model PRIVATE ${CMAKE_BINARY_DIR}/generated/xid_catalog_data.cc)
# Durable stores in SQLite (WAL): the shared wrapper and the workload event log.
steward_module(store DEPS model)
steward_module(place DEPS model)
steward_module(govern DEPS model)
# HTTP(S) serving shared by every server (dashboard API, Kubernetes API front, cost API).
steward_module(http DEPS model)
target_link_libraries(steward_http PUBLIC steward_httplib OpenSSL::Crypto)
# The Kubernetes codec both sides share: objects <-> JSON, selectors, patches, the versioned
# object store with its watch history, and a transport-neutral API request handler.
steward_module(kube DEPS http govern model)
# The tenant isolation audit (steward audit tenancy): cluster objects in, findings out. Kueue and
# Volcano objects are read by govern's importer.
steward_module(audit DEPS govern model)
# The one interface controllers observe and act through (docs: DEVELOPERS.md, "Controllers");
# the twin implements it (twin/twin_cluster_control.h), the live cluster in its module.
steward_module(control DEPS store model)
steward_module(twin DEPS control audit place govern model)
# The built-in default scenario is examples/default.yaml, compiled into the binary so
# `steward twin run` works from any directory. Editing the YAML re-runs the configure step.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/examples/default.yaml)
file(READ ${PROJECT_SOURCE_DIR}/examples/default.yaml STEWARD_DEFAULT_YAML)
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/generated/default_scenario.cc
     CONTENT "// Generated from examples/default.yaml by CMake. Do not edit.
#include \"twin/scenario.h\"
namespace steward::twin {
std::string_view DefaultScenarioYaml() {
  static constexpr char kYaml[] = R\"steward_yaml(@STEWARD_DEFAULT_YAML@)steward_yaml\";
  return {kYaml, sizeof(kYaml) - 1};
}
}  // namespace steward::twin
" @ONLY)
target_sources(steward_twin PRIVATE ${CMAKE_BINARY_DIR}/generated/default_scenario.cc)
# The twin is exported as a dcgm-exporter (telemetry/twin_exporter.h), and the Prometheus client
# uses Debian's cpp-httplib (steward_httplib in CMakeLists.txt) with OpenSSL for https (TLS
# versions, certificate verification messages).
steward_module(telemetry DEPS twin model)
target_link_libraries(steward_telemetry PUBLIC steward_httplib OpenSSL::SSL)
steward_module(health DEPS control telemetry store kube model)
# Idle reclaim: one policy, fed by the twin's usage signals (a twin controller) or by DCGM
# readings per pod (a controller on the control interface, run by operate).
steward_module(reclaim DEPS twin control kube model)
# Tidal lending (docs/tidal.md): the forecast, the lending decisions and the controller on the
# control interface, and the controller attached to the twin.
steward_module(tidal DEPS twin control model)
steward_module(cost DEPS store model)
# Diagnosis reads DCGM series (telemetry), kubectl node lists (health) and prices (cost).
steward_module(diagnose DEPS health telemetry twin cost model)
# /allocation is served with Debian's cpp-httplib (steward_httplib in CMakeLists.txt).
target_link_libraries(steward_cost PUBLIC steward_httplib)
# Waste causes on /metrics use cost's one vocabulary (cost/waste_cause.h).
steward_module(server DEPS http twin telemetry health cost model)
# The twin as a Kubernetes API server (steward serve --kube-port): the mirror from twin state
# to objects, the backend that applies API writes to the twin, the listener.
steward_module(kubefront DEPS server kube health twin govern model)
# The live-cluster client (issue 15): kubeconfig and in-cluster configuration, a rate-limited
# retrying REST client on cpp-httplib (TLS verified by default, exec credential plugins), and
# client-go-style informers feeding one cluster cache. Objects decode with kube/'s codec.
steward_module(live DEPS control kube http model)
target_link_libraries(steward_live PUBLIC steward_httplib OpenSSL::SSL OpenSSL::Crypto)
# Test-only: live_tests also drive the client against the twin's API front in-process
# (tests/live/twin_front_test.cc); the live library itself never depends on the twin.
if(TARGET live_tests)
  target_link_libraries(live_tests PRIVATE steward_kubefront)
endif()
# `steward audit tenancy --kubeconfig`: the audit's kinds listed from a live cluster into the
# audit's loader, with the kinds it could not read. Above both, so live never depends on the
# audit nor the audit on live.
steward_module(audit_live DEPS live audit model)
# `steward twin snapshot`: a live cluster (live/) written as a twin scenario directory (twin/'s
# scenario, govern's Kueue export). Above both, so live never depends on the twin.
steward_module(snapshot DEPS live health telemetry twin govern kube model)
include(${PROJECT_SOURCE_DIR}/cmake/dashboard.cmake)
# steward operate: the controllers on a live cluster (client, cache, gate, remediation, DCGM
# signals from Prometheus).
steward_module(operate DEPS live http health reclaim tidal telemetry control store model)
# Gated rollouts of GPU-stack changes (docs/rollout.md): the plan, the engine over
# control::ClusterControl, its SQLite state, and the engine as a twin controller.
steward_module(rollout DEPS twin control store model)
# Test-only: server_tests check /api/rollouts with the rollout engine running in the twin
# (tests/server/rollouts_api_test.cc); the server itself only takes the statuses as JSON.
if(TARGET server_tests)
  target_link_libraries(server_tests PRIVATE steward_rollout)
endif()
set(STEWARD_CLI_DEPS rollout operate snapshot audit_live live kubefront server diagnose reclaim tidal twin control audit place govern telemetry health cost store model)
