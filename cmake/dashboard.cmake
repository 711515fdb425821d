# The dashboard's files (web/*) are compiled into steward_server as string literals, so
# `steward serve` works from any directory and offline. Editing a file re-runs the configure step.
set(STEWARD_WEB_FILES index.html app.js style.css)
string(CONCAT web_cc "// Generated from web/ by cmake/dashboard.cmake. Do not edit.\n"
              "#include \"server/dashboard_assets.h\"\n"
              "namespace steward::server {\n"
              "const std::vector<Asset>& DashboardAssets() {\n"
              "  static const std::vector<Asset> kAssets = {\n")
foreach(f ${STEWARD_WEB_FILES})
  set(path ${PROJECT_SOURCE_DIR}/web/${f})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${path})
  file(READ ${path} body)
  if(body MATCHES "\\)steward_web\"")
    message(FATAL_ERROR "web/${f} contains the raw-string delimiter )steward_web\"")
  endif()
  if(f MATCHES "\\.html$")
    set(type "text/html; charset=utf-8")
  elseif(f MATCHES "\\.js$")
    set(type "text/javascript; charset=utf-8")
  elseif(f MATCHES "\\.css$")
    set(type "text/css; charset=utf-8")
  else()
    set(type "application/octet-stream")
  endif()
  string(APPEND web_cc "    {\"/${f}\", \"${type}\", R\"steward_web(${body})steward_web\"},\n")
endforeach()
string(APPEND web_cc "  };\n  return kAssets;\n}\n}  // namespace steward::server\n")
# Written through a temporary file so an unchanged dashboard does not rebuild the module.
file(WRITE ${CMAKE_BINARY_DIR}/generated/dashboard_assets_data.cc.tmp "${web_cc}")
file(COPY_FILE ${CMAKE_BINARY_DIR}/generated/dashboard_assets_data.cc.tmp
     ${CMAKE_BINARY_DIR}/generated/dashboard_assets_data.cc ONLY_IF_DIFFERENT)
target_sources(steward_server PRIVATE ${CMAKE_BINARY_DIR}/generated/dashboard_assets_data.cc)
target_link_libraries(steward_server PUBLIC steward_httplib)
