// The XID catalog moved to the model (model/xid_catalog.h) so the twin can decide what an
// injected XID does; health code keeps using these names.
#pragma once

#include "model/xid_catalog.h"

namespace steward::health {

using model::ParseXidAction;
using model::XidAction;
using model::XidActionName;
using model::XidCatalog;
using model::XidEntry;
using model::XidFamily;
using model::XidSeverity;
using model::XidSeverityName;

}  // namespace steward::health
