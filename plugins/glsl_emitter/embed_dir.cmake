# cmake -DDIR=dir -DGLOBS="*.comp|*.glsl" -DOUTPUT=out.inc -P embed_dir.cmake
# Writes every matching file of DIR as an entry {"name", R"OIEMBED(...)OIEMBED"} of
# kVulkanShaderFiles (only when the result changes, so dependents rebuild only then).
set(text "// Generated from the files of ${DIR}; do not edit.\n")
string(APPEND text "inline constexpr EmbeddedFile kVulkanShaderFiles[] = {\n")
set(files "")
string(REPLACE "|" ";" GLOBS "${GLOBS}")
foreach(glob IN LISTS GLOBS)
  file(GLOB found RELATIVE ${DIR} ${DIR}/${glob})
  list(APPEND files ${found})
endforeach()
list(SORT files)
foreach(name IN LISTS files)
  file(READ "${DIR}/${name}" body)
  string(APPEND text "    {\"${name}\", R\"OIEMBED(${body})OIEMBED\"},\n")
endforeach()
string(APPEND text "};\n")
file(WRITE "${OUTPUT}.tmp" "${text}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
