# ctest helper: runs `nodescope nodes`, matches exit status/stdout/stderr, parses --csv/--json.
# The parse needs Python; without one it is skipped.
# -DNODESCOPE=binary -DARGS=a|b|c -DEXPECT_RC=n -DEXPECT_STDOUT=regex -DEXPECT_STDERR=regex
# [-DPARSE=csv|json -DSCRATCH=file -DPYTHON=python3] [-DEXPECT_ROWS=n: CSV data rows]
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${NODESCOPE} nodes ${args}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(problems "")
if(NOT rc STREQUAL EXPECT_RC)
  string(APPEND problems "exit status ${rc}, expected ${EXPECT_RC}\n")
endif()
if(NOT out MATCHES "${EXPECT_STDOUT}")
  string(APPEND problems "stdout does not match: ${EXPECT_STDOUT}\n")
endif()
if(NOT err MATCHES "${EXPECT_STDERR}")
  string(APPEND problems "stderr does not match: ${EXPECT_STDERR}\n")
endif()
if(PARSE AND NOT PYTHON)
  message(STATUS "no Python: --${PARSE} output not parsed")
elseif(PARSE)
  get_filename_component(dir "${SCRATCH}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  file(WRITE "${SCRATCH}" "${out}")
  if(PARSE STREQUAL "json")
    # One object whose "graphs" is a non-empty list of objects, each with a "nodes" list.
    set(check "import json, sys\nd = json.load(open(sys.argv[1]))\ng = d['graphs']\nassert g and all(isinstance(x['nodes'], list) for x in g), d\nprint(len(g))")
  else()
    # RFC 4180: every record has the header's field count; prints the data records.
    set(check "import csv, sys\nrows = list(csv.reader(open(sys.argv[1], newline=''), strict=True))\nassert rows and all(len(r) == len(rows[0]) for r in rows), rows\nprint(len(rows) - 1)")
  endif()
  execute_process(COMMAND ${PYTHON} -c "${check}" ${SCRATCH}
                  RESULT_VARIABLE py_rc OUTPUT_VARIABLE py_out ERROR_VARIABLE py_err
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT py_rc EQUAL 0)
    string(APPEND problems "stdout is not valid ${PARSE}: ${py_err}\n")
  elseif(DEFINED EXPECT_ROWS AND NOT py_out STREQUAL EXPECT_ROWS)
    string(APPEND problems "${py_out} CSV data rows, expected ${EXPECT_ROWS}\n")
  endif()
endif()
if(problems)
  message(FATAL_ERROR "nodescope nodes ${args}\n${problems}--- stdout\n${out}--- stderr\n${err}")
endif()
