// The Vulkan instance (compute only: no surface extensions) and the physical devices in the
// order this plugin offers them: OPENINFER_VULKAN_DEVICE's choice, else discrete GPUs first.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <stdexcept>

#include "openinfer/plugin_abi.hpp"
#include "vk_context.hpp"

VULKAN_HPP_DEFAULT_DISPATCH_LOADER_DYNAMIC_STORAGE

namespace oi::vulkan {
namespace {

int type_rank(vk::PhysicalDeviceType t) {
  switch (t) {
    case vk::PhysicalDeviceType::eDiscreteGpu:
      return 0;
    case vk::PhysicalDeviceType::eIntegratedGpu:
      return 1;
    case vk::PhysicalDeviceType::eVirtualGpu:
      return 2;
    case vk::PhysicalDeviceType::eCpu:
      return 3;
    default:
      return 4;
  }
}

std::string version_text(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v));
}

const char* component_name(vk::ComponentTypeNV t) {
  switch (t) {
    case vk::ComponentTypeNV::eFloat16:
      return "f16";
    case vk::ComponentTypeNV::eFloat32:
      return "f32";
    case vk::ComponentTypeNV::eFloat64:
      return "f64";
    case vk::ComponentTypeNV::eSint8:
      return "i8";
    case vk::ComponentTypeNV::eUint8:
      return "u8";
    case vk::ComponentTypeNV::eSint32:
      return "i32";
    case vk::ComponentTypeNV::eUint32:
      return "u32";
    default:
      return "other";
  }
}

bool has_extension(vk::PhysicalDevice pd, const char* name) {
  for (const auto& e : pd.enumerateDeviceExtensionProperties()) {
    if (std::string(e.extensionName.data()) == name) return true;
  }
  return false;
}

// VK_NV_cooperative_matrix's shapes, where the device also has what its shaders need (the Vulkan
// memory model and f16 arithmetic, core in 1.2). Of the subgroup-scope f16 x f16 + f32 -> f32
// shapes, matmul_coop.comp takes the one with the most outputs (16 x 16 over 16 x 8).
void read_coop_caps(vk::PhysicalDevice pd, uint32_t api, DeviceCaps& caps) {
  if (api < VK_API_VERSION_1_2 || caps.subgroup_size != 32 ||
      !has_extension(pd, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME)) {
    return;
  }
  auto feats = pd.getFeatures2<vk::PhysicalDeviceFeatures2, vk::PhysicalDeviceVulkan12Features,
                               vk::PhysicalDeviceCooperativeMatrixFeaturesNV>();
  const auto& v12 = feats.get<vk::PhysicalDeviceVulkan12Features>();
  if (!feats.get<vk::PhysicalDeviceCooperativeMatrixFeaturesNV>().cooperativeMatrix ||
      !v12.vulkanMemoryModel || !v12.shaderFloat16) {
    return;
  }
  for (const auto& c : pd.getCooperativeMatrixPropertiesNV()) {
    const bool subgroup = c.scope == vk::ScopeNV::eSubgroup;
    if (!caps.coop_shapes.empty()) caps.coop_shapes += " ";
    caps.coop_shapes += std::to_string(c.MSize) + "x" + std::to_string(c.NSize) + "x" +
                        std::to_string(c.KSize) + ":" + component_name(c.AType) + "*" +
                        component_name(c.BType) + "+" + component_name(c.CType) + "->" +
                        component_name(c.DType) + (subgroup ? "" : "(not subgroup)");
    const bool fits = subgroup && c.AType == vk::ComponentTypeNV::eFloat16 &&
                      c.BType == vk::ComponentTypeNV::eFloat16 &&
                      c.CType == vk::ComponentTypeNV::eFloat32 &&
                      c.DType == vk::ComponentTypeNV::eFloat32 && c.MSize == 16 &&
                      (c.NSize == 8 || c.NSize == 16) && c.KSize % 8 == 0 && c.KSize <= 32;
    if (fits && c.MSize * c.NSize > caps.coop_m * caps.coop_n) {
      caps.coop_m = c.MSize;
      caps.coop_n = c.NSize;
      caps.coop_k = c.KSize;
    }
  }
}

DeviceCaps read_caps(vk::PhysicalDevice pd, uint32_t api) {
  DeviceCaps caps;
  auto props =
      pd.getProperties2<vk::PhysicalDeviceProperties2, vk::PhysicalDeviceSubgroupProperties,
                        vk::PhysicalDeviceFloatControlsProperties>();
  const auto& limits = props.get<vk::PhysicalDeviceProperties2>().properties.limits;
  caps.max_storage_range = limits.maxStorageBufferRange;
  const auto& subgroup = props.get<vk::PhysicalDeviceSubgroupProperties>();
  caps.subgroup_size = subgroup.subgroupSize;
  if (subgroup.supportedStages & vk::ShaderStageFlagBits::eCompute)
    caps.subgroup_ops = static_cast<uint32_t>(subgroup.supportedOperations);
  caps.max_shared_memory = limits.maxComputeSharedMemorySize;
  auto feats = pd.getFeatures2<vk::PhysicalDeviceFeatures2, vk::PhysicalDevice16BitStorageFeatures,
                               vk::PhysicalDevice8BitStorageFeatures>();
  const auto& core = feats.get<vk::PhysicalDeviceFeatures2>().features;
  caps.f64 = core.shaderFloat64;
  caps.i64 = core.shaderInt64;
  caps.storage16 = feats.get<vk::PhysicalDevice16BitStorageFeatures>().storageBuffer16BitAccess;
  if (api >= VK_API_VERSION_1_2) {  // the float controls and 8-bit storage structs are core 1.2
    caps.storage8 = feats.get<vk::PhysicalDevice8BitStorageFeatures>().storageBuffer8BitAccess;
    const auto& fc = props.get<vk::PhysicalDeviceFloatControlsProperties>();
    caps.float_controls32 =
        fc.shaderDenormPreserveFloat32 && fc.shaderSignedZeroInfNanPreserveFloat32;
    caps.float_controls64 =
        caps.f64 && fc.shaderDenormPreserveFloat64 && fc.shaderSignedZeroInfNanPreserveFloat64;
    caps.ieee_specials32 = fc.shaderSignedZeroInfNanPreserveFloat32;
    caps.ieee_specials64 = caps.f64 && fc.shaderSignedZeroInfNanPreserveFloat64;
  }
  read_coop_caps(pd, api, caps);
  return caps;
}

// nullopt-like: false when the device has no compute queue or is older than Vulkan 1.1.
bool describe(vk::PhysicalDevice pd, PhysicalDevice& out) {
  const auto props = pd.getProperties();
  if (props.apiVersion < VK_API_VERSION_1_1) return false;
  const auto families = pd.getQueueFamilyProperties();
  auto it = std::find_if(families.begin(), families.end(), [](const auto& f) {
    return static_cast<bool>(f.queueFlags & vk::QueueFlagBits::eCompute);
  });
  if (it == families.end()) return false;
  out.handle = pd;
  out.api_version = props.apiVersion;
  out.queue_family = static_cast<uint32_t>(it - families.begin());
  out.type = props.deviceType;
  out.caps = read_caps(pd, props.apiVersion);
  out.dtypes = {OI_DTYPE_F32, OI_DTYPE_I32, OI_DTYPE_F16, OI_DTYPE_BF16,
                OI_DTYPE_I64};  // i64: emulated without shaderInt64
  if (out.caps.f64) out.dtypes.push_back(OI_DTYPE_F64);
  const auto memory = pd.getMemoryProperties();
  for (uint32_t h = 0; h < memory.memoryHeapCount; ++h) {
    if (memory.memoryHeaps[h].flags & vk::MemoryHeapFlagBits::eDeviceLocal) {
      out.memory_bytes += memory.memoryHeaps[h].size;
    }
  }
  const DeviceCaps& c = out.caps;
  out.name =
      std::string(props.deviceName.data()) + " (Vulkan " + version_text(props.apiVersion) + ", " +
      vk::to_string(props.deviceType) + ", subgroup " + std::to_string(c.subgroup_size) +
      (c.f64 ? ", f64" : "") + (c.i64 ? ", i64" : "") + (c.storage16 ? ", f16 storage" : "") +
      (c.storage8 ? ", i8 storage" : "") +
      (c.coop_m ? ", tensor cores through VK_NV_cooperative_matrix (" + c.coop_shapes + ")" : "") +
      ")";
  return true;
}

// Moves the device OPENINFER_VULKAN_DEVICE names (an index of the driver's order or a
// case-insensitive name substring) to the front; no match leaves no device at all.
void apply_override(std::vector<PhysicalDevice>& devices, std::vector<PhysicalDevice> all_order,
                    std::string& summary) {
  const char* env = std::getenv("OPENINFER_VULKAN_DEVICE");
  if (env == nullptr || *env == '\0') return;
  std::string want(env);
  auto lower = [](std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  const PhysicalDevice* pick = nullptr;
  if (std::all_of(want.begin(), want.end(), [](char ch) { return std::isdigit(ch); })) {
    size_t index = std::stoul(want);
    if (index < all_order.size()) pick = &all_order[index];
  } else {
    for (const auto& d : all_order) {
      if (lower(d.name).find(lower(want)) != std::string::npos) {
        pick = &d;
        break;
      }
    }
  }
  if (pick == nullptr) {
    summary = "OPENINFER_VULKAN_DEVICE=" + want + " matches no Vulkan compute device";
    devices.clear();
    return;
  }
  PhysicalDevice chosen = *pick;
  std::erase_if(devices, [&](const PhysicalDevice& d) { return d.handle == chosen.handle; });
  devices.insert(devices.begin(), chosen);
}

void create(Context& ctx) {
  ctx.loader = std::make_unique<vk::DynamicLoader>();  // throws when libvulkan.so.1 is absent
  VULKAN_HPP_DEFAULT_DISPATCHER.init(
      ctx.loader->getProcAddress<PFN_vkGetInstanceProcAddr>("vkGetInstanceProcAddr"));
  vk::ApplicationInfo app("openinfer", 1, "openinfer", 1, VK_API_VERSION_1_2);
  ctx.instance = vk::createInstance(vk::InstanceCreateInfo({}, &app));
  VULKAN_HPP_DEFAULT_DISPATCHER.init(ctx.instance);
  std::vector<PhysicalDevice> all;  // a device without compute keeps its index for the override
  for (vk::PhysicalDevice pd : ctx.instance.enumeratePhysicalDevices()) {
    PhysicalDevice d;
    if (describe(pd, d)) all.push_back(d);
  }
  ctx.devices = all;
  std::stable_sort(ctx.devices.begin(), ctx.devices.end(), [](const auto& x, const auto& y) {
    return type_rank(x.type) < type_rank(y.type);
  });
  apply_override(ctx.devices, all, ctx.summary);
  if (ctx.summary.empty()) {
    ctx.summary = ctx.devices.empty() ? "no Vulkan 1.1 device with a compute queue"
                                      : "device 0: " + ctx.devices.front().name;
  }
}

}  // namespace

Context::~Context() {
  if (instance) instance.destroy();
}

std::unique_ptr<Context>& context_slot() {
  static std::unique_ptr<Context> slot;
  return slot;
}

Context& context() {
  auto& slot = context_slot();
  if (!slot) {
    slot = std::make_unique<Context>();
    try {
      create(*slot);
    } catch (const std::exception& e) {
      slot->devices.clear();
      slot->summary = std::string("no Vulkan: ") + e.what();
    }
  }
  return *slot;
}

void shutdown_instance() {
  context_slot().reset();
}

const DeviceCaps* device_caps(uint32_t index) {
  const auto& devices = context().devices;
  return index < devices.size() ? &devices[index].caps : nullptr;
}

const std::string& device_summary() {
  return context().summary;
}

oi_status* device_count(void*, uint32_t* out_count) {
  OI_ABI_TRY
  *out_count = static_cast<uint32_t>(context().devices.size());
  OI_ABI_CATCH(host())
}

oi_status* device_get_info(void*, uint32_t index, oi_device_info* out_info) {
  OI_ABI_TRY
  const auto& devices = context().devices;
  if (index >= devices.size()) {
    return abi::make_status(host(), OI_STATUS_NOT_FOUND, "no such Vulkan device");
  }
  const PhysicalDevice& d = devices[index];
  oi_device_info info{};
  info.name = d.name.c_str();
  info.features = (d.caps.f64 ? OI_FEATURE_F64 : 0) | (d.caps.i64 ? OI_FEATURE_I64 : 0);
  // Without float controls the driver may flush subnormals (Vulkan leaves it open).
  if (!d.caps.float_controls32 || (d.caps.f64 && !d.caps.float_controls64)) {
    info.features |= OI_FEATURE_FLUSHES_SUBNORMALS;
  }
  info.dtypes = d.dtypes.data();
  info.num_dtypes = static_cast<uint32_t>(d.dtypes.size());
  info.memory_bytes = d.memory_bytes;
  abi::write_versioned(out_info, info);
  OI_ABI_CATCH(host())
}

}  // namespace oi::vulkan
