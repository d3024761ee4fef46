# cmake -DINPUTS="VAR=file|VAR2=file2" -DOUTPUT=out.inc -P embed_text.cmake
# Writes each file as `inline constexpr char VAR[] = R"OIEMBED(...)OIEMBED";` (only when the
# result changes, so dependents rebuild only then).
set(text "// Generated from the files named below; do not edit.\n")
string(REPLACE "|" ";" pairs "${INPUTS}")
foreach(pair IN LISTS pairs)
  string(FIND "${pair}" "=" eq)
  string(SUBSTRING "${pair}" 0 ${eq} var)
  math(EXPR start "${eq} + 1")
  string(SUBSTRING "${pair}" ${start} -1 file)
  file(READ "${file}" body)
  string(APPEND text "// ${file}\ninline constexpr char ${var}[] = R\"OIEMBED(${body})OIEMBED\";\n")
endforeach()
file(WRITE "${OUTPUT}.tmp" "${text}")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
