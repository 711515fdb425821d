#include "health/incidents/incident_grouper.h"

#include <algorithm>
#include <set>
#include <utility>

namespace steward::health {
namespace {

constexpr int kRackKey = static_cast<int>(IncidentScope::kRack);
constexpr int kLeafKey = static_cast<int>(IncidentScope::kLeaf);

void AddMember(Incident& inc, const std::string& node) {
  if (std::find(inc.nodes.begin(), inc.nodes.end(), node) == inc.nodes.end()) {
    inc.nodes.push_back(node);
  }
}

}  // namespace

IncidentGrouper::IncidentGrouper(IncidentOptions options) : options_(options) {}

IncidentId IncidentGrouper::Root(IncidentId id) const {
  // Chains are at most node -> rack -> leaf, but guard against a corrupt store looping.
  for (int hops = 0; id != 0 && hops < 8; ++hops) {
    auto it = incidents_.find(id);
    if (it == incidents_.end() || it->second.parent == 0) return id;
    id = it->second.parent;
  }
  return id;
}

const Incident* IncidentGrouper::Find(IncidentId id) const {
  auto it = incidents_.find(id);
  return it == incidents_.end() ? nullptr : &it->second;
}

void IncidentGrouper::SetTicket(IncidentId id, TicketId ticket) {
  auto it = incidents_.find(id);
  if (it != incidents_.end()) it->second.ticket = ticket;
}

std::vector<IncidentId> IncidentGrouper::Close(IncidentId id) {
  std::vector<IncidentId> changed;
  auto it = incidents_.find(id);
  if (it == incidents_.end()) return changed;
  it->second.closed = true;
  changed.push_back(id);
  // Children point up, so find them by scanning; incidents are few (one per fault episode) and
  // closing happens once per ticket.
  for (auto& [cid, inc] : incidents_) {
    if (!inc.closed && cid != id && Root(cid) == id) {
      inc.closed = true;
      changed.push_back(cid);
    }
  }
  return changed;
}

bool IncidentGrouper::Active(IncidentId id, SimTime at) const {
  const Incident* inc = Find(id);
  return inc != nullptr && !inc->closed && inc->parent == 0 &&
         inc->last_fault >= at + (SimDuration() - options_.window);
}

void IncidentGrouper::Prune(std::deque<GroupedFault>& q, SimTime now) const {
  SimTime cutoff = now + (SimDuration() - options_.window);
  while (!q.empty() && q.front().at < cutoff) q.pop_front();
}

Incident& IncidentGrouper::Create(IncidentScope scope, const GroupedFault& f,
                                  std::vector<IncidentId>* changed) {
  Incident inc;
  inc.id = next_id_++;
  inc.scope = scope;
  inc.category = f.category;
  inc.first_fault = f.at;
  inc.last_fault = f.at;
  inc.leaf = f.leaf;
  switch (scope) {
    case IncidentScope::kNode:
      inc.subject = f.node;
      inc.rack = f.rack;
      break;
    case IncidentScope::kRack:
      inc.subject = "rack-" + std::to_string(f.rack);
      inc.rack = f.rack;
      break;
    case IncidentScope::kLeaf:
      inc.subject = "leaf-" + std::to_string(f.leaf);
      break;
  }
  // A group's members come from the window it absorbs (the caller then joins `f`).
  if (scope == IncidentScope::kNode) inc.nodes.push_back(f.node);
  changed->push_back(inc.id);
  return incidents_.emplace(inc.id, std::move(inc)).first->second;
}

void IncidentGrouper::Join(Incident& inc, const GroupedFault& f) {
  AddMember(inc, f.node);
  inc.last_fault = std::max(inc.last_fault, f.at);
  inc.first_fault = std::min(inc.first_fault, f.at);
}

void IncidentGrouper::Absorb(Incident& group, const std::deque<GroupedFault>& window,
                             std::vector<IncidentId>* changed) {
  for (const GroupedFault& e : window) {
    Join(group, e);
    IncidentId root = Root(e.incident);
    if (root == 0 || root == group.id) continue;
    Incident& child = incidents_.at(root);
    if (child.closed) continue;  // Already repaired: history, not part of this problem.
    child.parent = group.id;
    changed->push_back(root);
  }
}

IncidentGrouper::Outcome IncidentGrouper::Add(GroupedFault f) {
  Outcome out;
  Key rack_key{kRackKey, f.rack, f.category};
  Key leaf_key{kLeafKey, f.leaf, f.category};
  auto& rack_q = recent_[rack_key];
  auto& leaf_q = recent_[leaf_key];
  SimTime now = f.at;
  if (!leaf_q.empty()) now = std::max(now, leaf_q.back().at);
  Prune(rack_q, now);
  Prune(leaf_q, now);
  f.incident = 0;

  auto finish = [&](IncidentId joined) {
    f.incident = joined;
    rack_q.push_back(f);
    leaf_q.push_back(f);
    out.incident = Root(joined);
    return out;
  };

  // 1. An active leaf incident absorbs the fault.
  if (auto g = group_.find(leaf_key); g != group_.end() && Active(g->second, f.at)) {
    Join(incidents_.at(g->second), f);
    out.changed.push_back(g->second);
    return finish(g->second);
  }
  // 2. Does the leaf now qualify?
  if (options_.leaf_min_nodes > 0) {
    std::set<std::string> nodes{f.node};
    std::set<int> racks{f.rack};
    for (const GroupedFault& e : leaf_q) {
      nodes.insert(e.node);
      racks.insert(e.rack);
    }
    if (static_cast<int>(nodes.size()) >= options_.leaf_min_nodes &&
        static_cast<int>(racks.size()) >= options_.leaf_min_racks) {
      Incident& g = Create(IncidentScope::kLeaf, f, &out.changed);
      Absorb(g, leaf_q, &out.changed);
      Join(g, f);  // After the window: members stay in order of first fault.
      group_[leaf_key] = g.id;
      return finish(g.id);
    }
  }
  // 3. An active rack incident absorbs the fault.
  if (auto g = group_.find(rack_key); g != group_.end() && Active(g->second, f.at)) {
    Join(incidents_.at(g->second), f);
    out.changed.push_back(g->second);
    return finish(g->second);
  }
  // 4. Does the rack now qualify?
  if (options_.rack_min_nodes > 0) {
    std::set<std::string> nodes{f.node};
    for (const GroupedFault& e : rack_q) nodes.insert(e.node);
    if (static_cast<int>(nodes.size()) >= options_.rack_min_nodes) {
      Incident& g = Create(IncidentScope::kRack, f, &out.changed);
      Absorb(g, rack_q, &out.changed);
      Join(g, f);  // After the window: members stay in order of first fault.
      group_[rack_key] = g.id;
      return finish(g.id);
    }
  }
  // 5. The node's own incident.
  auto key = std::make_pair(f.node, f.category);
  if (auto n = node_incident_.find(key); n != node_incident_.end() && Active(n->second, f.at)) {
    Join(incidents_.at(n->second), f);
    out.changed.push_back(n->second);
    return finish(n->second);
  }
  Incident& inc = Create(IncidentScope::kNode, f, &out.changed);
  node_incident_[key] = inc.id;
  return finish(inc.id);
}

void IncidentGrouper::Restore(std::vector<Incident> incidents,
                              std::vector<GroupedFault> recent_faults) {
  incidents_.clear();
  recent_.clear();
  group_.clear();
  node_incident_.clear();
  next_id_ = 1;
  for (Incident& inc : incidents) {
    next_id_ = std::max(next_id_, inc.id + 1);
    // Later incidents win the per-key slot, as they would have when created.
    switch (inc.scope) {
      case IncidentScope::kNode:
        node_incident_[{inc.subject, inc.category}] = inc.id;
        break;
      case IncidentScope::kRack:
        group_[Key{kRackKey, inc.rack, inc.category}] = inc.id;
        break;
      case IncidentScope::kLeaf:
        group_[Key{kLeafKey, inc.leaf, inc.category}] = inc.id;
        break;
    }
    IncidentId id = inc.id;
    incidents_.emplace(id, std::move(inc));
  }
  std::stable_sort(recent_faults.begin(), recent_faults.end(),
                   [](const GroupedFault& a, const GroupedFault& b) { return a.at < b.at; });
  for (GroupedFault& f : recent_faults) {
    recent_[Key{kRackKey, f.rack, f.category}].push_back(f);
    recent_[Key{kLeafKey, f.leaf, f.category}].push_back(f);
  }
}

}  // namespace steward::health
