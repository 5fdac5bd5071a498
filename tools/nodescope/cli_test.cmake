# ctest helper: runs one `nodescope` subcommand and checks its exit status, stdout and stderr,
# and what the subcommand writes (plot: the output file; nodes: --csv/--json parsed by Python).
# -DNODESCOPE=binary -DSUBCOMMAND=check|nodes|plot -DARGS=a|b|c
# -DEXPECT_RC=n -DEXPECT_STDOUT=regex -DEXPECT_STDERR=regex [-DPYTHON=python3]
# nodes: [-DPARSE=csv|json -DSCRATCH=file] [-DEXPECT_ROWS=n: CSV data rows]
# plot:  -DOUTPUT=path [-DEXPECT_FILE=regex] (an .svg is also parsed with minidom)
# Without Python the parses are skipped.
string(REPLACE "|" ";" args "${ARGS}")
set(command ${NODESCOPE} ${SUBCOMMAND} ${args})
if(DEFINED OUTPUT)
  file(REMOVE "${OUTPUT}")
  get_filename_component(dir "${OUTPUT}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  list(APPEND command -o ${OUTPUT})
endif()
execute_process(COMMAND ${command} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)

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

# Runs Python code on a file; appends `what` and Python's error to problems when it fails.
function(python_check code file what)
  execute_process(COMMAND ${PYTHON} -c "${code}" ${file}
                  RESULT_VARIABLE py_rc OUTPUT_VARIABLE py_out ERROR_VARIABLE py_err
                  OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT py_rc EQUAL 0)
    set(problems "${problems}${what}: ${py_err}\n" PARENT_SCOPE)
  endif()
  set(py_out "${py_out}" PARENT_SCOPE)
endfunction()

if(DEFINED PARSE AND NOT PYTHON)
  message(STATUS "no Python: --${PARSE} output not parsed")
elseif(DEFINED PARSE)
  get_filename_component(dir "${SCRATCH}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  file(WRITE "${SCRATCH}" "${out}")
  if(PARSE STREQUAL "json")
    # One object whose "graphs" is a non-empty list of objects, each with a "nodes" list.
    set(code "import json, sys\nd = json.load(open(sys.argv[1]))\ng = d['graphs']\nassert g and all(isinstance(x['nodes'], list) for x in g), d\nprint(len(g))")
  else()
    # RFC 4180: every record has the header's field count; prints the data records.
    set(code "import csv, sys\nrows = list(csv.reader(open(sys.argv[1], newline=''), strict=True))\nassert rows and all(len(r) == len(rows[0]) for r in rows), rows\nprint(len(rows) - 1)")
  endif()
  python_check("${code}" "${SCRATCH}" "stdout is not valid ${PARSE}")
  if(DEFINED EXPECT_ROWS AND NOT py_out STREQUAL EXPECT_ROWS)
    string(APPEND problems "${py_out} CSV data rows, expected ${EXPECT_ROWS}\n")
  endif()
endif()

if(DEFINED OUTPUT)
  file(GLOB leftovers "${OUTPUT}.tmp-*")
  if(leftovers)
    string(APPEND problems "temporary files left behind: ${leftovers}\n")
  endif()
  if(NOT DEFINED EXPECT_FILE)
    if(EXISTS "${OUTPUT}")
      string(APPEND problems "${OUTPUT} was written, expected no output\n")
    endif()
  elseif(NOT EXISTS "${OUTPUT}")
    string(APPEND problems "${OUTPUT} was not written\n")
  else()
    file(READ "${OUTPUT}" text)
    if(NOT text MATCHES "${EXPECT_FILE}")
      string(APPEND problems "${OUTPUT} does not match: ${EXPECT_FILE}\n")
    endif()
    # Self-contained: nothing fetched from anywhere (the SVG namespace is a name, not a fetch).
    if(text MATCHES "(src|href)=\"?(https?:)?//")
      string(APPEND problems "${OUTPUT} refers to an external resource\n")
    endif()
    if(PYTHON AND OUTPUT MATCHES "\\.svg$")
      python_check("import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert d.documentElement.tagName == 'svg'"
                   "${OUTPUT}" "${OUTPUT} is not well-formed XML")
    endif()
  endif()
endif()

if(problems)
  string(REPLACE ";" " " shown "${command}")
  message(FATAL_ERROR "${shown}\n${problems}--- stdout\n${out}--- stderr\n${err}")
endif()
