// vulkan_dispatch_probe: a dispatch that does nothing (the floor of a dispatch).
#version 450
layout(local_size_x = 256) in;
void main() {}
