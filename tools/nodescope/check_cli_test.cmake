# ctest helper: runs `nodescope check` and matches its exit status, stdout and stderr.
# -DNODESCOPE=binary -DARGS=a|b|c -DEXPECT_RC=n -DEXPECT_STDOUT=regex -DEXPECT_STDERR=regex
string(REPLACE "|" ";" args "${ARGS}")
execute_process(COMMAND ${NODESCOPE} check ${args}
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
if(problems)
  message(FATAL_ERROR "nodescope check ${args}\n${problems}--- stdout\n${out}--- stderr\n${err}")
endif()
