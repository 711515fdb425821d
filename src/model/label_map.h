// LabelMap: a workload's Kubernetes labels, shared between copies until one of them changes.
//
// Every workload a generator makes carries the same labels (the generator's plus
// steward.io/generator), and the twin makes and frees hundreds of thousands of them per simulated
// day; a std::map per workload was a tenth of a 102,400-GPU run (allocating and freeing its
// nodes). Copies share one immutable map; the first change to a copy gives it its own.
//
//   model::LabelMap shared({{"app", "llm"}});
//   model::Workload a, b;
//   a.labels = shared;                  // no allocation: a reference count
//   b.labels = shared;
//   b.labels["tier"] = "gold";          // b copies the map, then changes its copy
//   const std::map<std::string, std::string>& m = a.labels;   // reads see a plain std::map
//
// Reads: find/at/count/contains/size/empty/begin/end, and an implicit const std::map&.
// Writes (operator[], emplace, insert_or_assign, erase, clear) copy the map first when it is
// shared. Thread-safety: as a std::map's (const use from many threads is safe; the reference
// count is atomic, so copies may live on different threads).
#pragma once

#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>

namespace steward::model {

class LabelMap {
 public:
  using Map = std::map<std::string, std::string>;
  using const_iterator = Map::const_iterator;
  using value_type = Map::value_type;

  LabelMap() = default;
  LabelMap(Map map)  // NOLINT(google-explicit-constructor): a map is a label set.
      : map_(map.empty() ? nullptr : std::make_shared<Map>(std::move(map))) {}
  LabelMap(std::initializer_list<value_type> init) : LabelMap(Map(init)) {}
  LabelMap& operator=(Map map) { return *this = LabelMap(std::move(map)); }

  const Map& map() const { return map_ ? *map_ : Empty(); }
  operator const Map&() const { return map(); }  // NOLINT(google-explicit-constructor)

  const_iterator begin() const { return map().begin(); }
  const_iterator end() const { return map().end(); }
  const_iterator find(const std::string& key) const { return map().find(key); }
  const std::string& at(const std::string& key) const { return map().at(key); }
  size_t count(const std::string& key) const { return map().count(key); }
  bool contains(const std::string& key) const { return map().contains(key); }
  size_t size() const { return map_ ? map_->size() : 0; }
  bool empty() const { return size() == 0; }

  std::string& operator[](const std::string& key) { return Own()[key]; }
  template <typename... Args>
  std::pair<Map::iterator, bool> emplace(Args&&... args) {
    return Own().emplace(std::forward<Args>(args)...);
  }
  template <typename V>
  std::pair<Map::iterator, bool> insert_or_assign(const std::string& key, V&& value) {
    return Own().insert_or_assign(key, std::forward<V>(value));
  }
  size_t erase(const std::string& key) {
    return map_ && map_->contains(key) ? Own().erase(key) : 0;
  }
  void clear() { map_.reset(); }

  friend bool operator==(const LabelMap& a, const LabelMap& b) {
    return a.map_ == b.map_ || a.map() == b.map();
  }
  friend bool operator==(const LabelMap& a, const Map& b) { return a.map() == b; }

 private:
  static const Map& Empty() {
    static const Map empty;
    return empty;
  }
  // The map this copy alone holds, copied from the shared one if another copy holds it too.
  Map& Own() {
    if (!map_) {
      map_ = std::make_shared<Map>();
    } else if (map_.use_count() > 1) {
      map_ = std::make_shared<Map>(*map_);
    }
    return *map_;
  }

  std::shared_ptr<Map> map_;  // Null: no labels.
};

}  // namespace steward::model
