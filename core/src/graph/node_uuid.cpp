// Deterministic node ids: RFC 4122 version-5 (SHA-1, name-based) UUIDs of the node's path, so
// the same graph always gets the same ids in JSON and traces.
#include <boost/uuid/name_generator_sha1.hpp>
#include <boost/uuid/uuid_io.hpp>

#include "openinfer/graph.hpp"

namespace oi {

namespace {

// The namespace of OpenInfer node ids: the v5 UUID of "openinfer.node" in the RFC 4122 URL
// namespace, so it depends on nothing but these two constants.
boost::uuids::uuid node_namespace() {
  static const boost::uuids::uuid ns =
      boost::uuids::name_generator_sha1(boost::uuids::ns::url())("openinfer.node");
  return ns;
}

}  // namespace

std::string node_uuid(std::string_view block_name, std::string_view position_path) {
  std::string name;
  name.reserve(block_name.size() + 1 + position_path.size());
  name.append(block_name).append("/").append(position_path);
  boost::uuids::name_generator_sha1 generate(node_namespace());
  return boost::uuids::to_string(generate(name.data(), name.size()));
}

}  // namespace oi
