# The subcommands end to end (cli_test.cmake): exit statuses, messages, what they write.
# nodescope_cli_test(SUBCOMMAND NAME EXIT n ARGS ... STDOUT regex STDERR regex
#                    [PARSE csv|json] [ROWS n] [OUTPUT file FILE regex])
# Also labelled unit: hermetic and fast, so scripts/test.sh runs them under the sanitizers too.
find_package(Python3 COMPONENTS Interpreter QUIET)
function(nodescope_cli_test subcommand name)
  cmake_parse_arguments(T "" "EXIT;STDOUT;STDERR;PARSE;ROWS;OUTPUT;FILE" "ARGS" ${ARGN})
  string(REPLACE ";" "|" args "${T_ARGS}")
  set(extra "")
  if(DEFINED T_PARSE)
    list(APPEND extra -DPARSE=${T_PARSE}
         "-DSCRATCH=${CMAKE_CURRENT_BINARY_DIR}/${subcommand}_cli/${name}.${T_PARSE}")
  endif()
  if(DEFINED T_ROWS)
    list(APPEND extra -DEXPECT_ROWS=${T_ROWS})
  endif()
  if(DEFINED T_OUTPUT)
    list(APPEND extra "-DOUTPUT=${CMAKE_CURRENT_BINARY_DIR}/${subcommand}_cli/${T_OUTPUT}")
  endif()
  if(DEFINED T_FILE)
    list(APPEND extra "-DEXPECT_FILE=${T_FILE}")
  endif()
  add_test(NAME ${subcommand}_cli_${name}
           COMMAND ${CMAKE_COMMAND} -DNODESCOPE=$<TARGET_FILE:nodescope_cli>
                   -DSUBCOMMAND=${subcommand} "-DARGS=${args}" -DEXPECT_RC=${T_EXIT}
                   "-DEXPECT_STDOUT=${T_STDOUT}" "-DEXPECT_STDERR=${T_STDERR}"
                   "-DPYTHON=${Python3_EXECUTABLE}" ${extra}
                   -P ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.cmake)
  set_tests_properties(${subcommand}_cli_${name} PROPERTIES LABELS "unit;cli" TIMEOUT 60)
endfunction()

# check: the fixtures of src/analysis/testdata.
if(NODESCOPE_BUILD_TESTS AND TARGET nodescope_trace_reader)
  set(data ${PROJECT_SOURCE_DIR}/src/analysis/testdata)
  nodescope_cli_test(check clean EXIT 0 ARGS ${data}/clean.json STDERR "^$"
    STDOUT "occurrences per node +min 3  median 5  max 5\n.*withheld attribution +exec_changed=2\n  dropped records +0\n  verdict +clean\n$")
  nodescope_cli_test(check sample EXIT 0 ARGS ${PROJECT_SOURCE_DIR}/src/export/testdata/sample.json
    STDOUT "with graph keys +2\n.*dropped records +5\n  verdict +clean\n$" STDERR "^$")
  nodescope_cli_test(check torch EXIT 0 ARGS ${data}/torch.json STDERR "^$"
    STDOUT "GPU events \\(kernel/copy/fill\\) +2 \\(1/1/0\\)\n  with graph keys +0\n.*verdict +clean \\(no graph keys to check\\)\n$")
  nodescope_cli_test(check aliased EXIT 1 ARGS ${data}/aliased.json STDERR "^$"
    STDOUT "aliased keys +4 of 4 keys\n    graph 3 node 12884901888 \\(3<<32[|]0\\): 2 x \"void after0\\(float\\*\\)\", 2 x \"void before0\\(float\\*\\)\"\n.*verdict +aliased\n$")
  nodescope_cli_test(check inconsistent EXIT 1 ARGS ${data}/inconsistent.json STDERR "^$"
    STDOUT "node >> 32 != graph id +1\n.*one key without the other +1\n.*verdict +inconsistent\n$")
  nodescope_cli_test(check truncated EXIT 2 ARGS ${data}/truncated.json STDOUT "^$"
    STDERR "^nodescope check: [^\n]*/truncated.json: byte [0-9]+ \\(end of file\\): the JSON ends before")
  nodescope_cli_test(check wrong_type EXIT 2 ARGS ${data}/wrong_type.json STDOUT "^$"
    STDERR "/wrong_type.json: byte 664: \"graph id\" is a string, expected an unsigned integer\n$")
  nodescope_cli_test(check not_json EXIT 2 ARGS ${data}/not_json.json STDOUT "^$"
    STDERR "/not_json.json: byte 0: ")
  nodescope_cli_test(check missing EXIT 2 ARGS ${data}/no-such-file.json STDOUT "^$"
    STDERR "/no-such-file.json: No such file or directory")
  nodescope_cli_test(check mixed EXIT 2
    ARGS ${data}/clean.json ${data}/truncated.json ${data}/aliased.json
    STDOUT "verdict +clean\n\n[^\n]*/aliased.json\n.*verdict +aliased\n$" STDERR "/truncated.json: byte")
  nodescope_cli_test(check json EXIT 1 ARGS --json ${data}/clean.json ${data}/aliased.json
    STDOUT "^{\"file\":[^\n]*\"verdict\":\"clean\"}\n{\"file\":[^\n]*\"aliased_keys\":4,[^\n]*\"clean\":false,\"verdict\":\"aliased\"}\n$"
    STDERR "^$")
  nodescope_cli_test(check json_error EXIT 2 ARGS --json ${data}/not_json.json
    STDOUT "\"verdict\":\"unreadable\"}\n$" STDERR "not_json.json")
  nodescope_cli_test(check usage EXIT 2 ARGS "" STDOUT "" STDERR "traces is required")
endif()


if(NODESCOPE_BUILD_TESTS AND TARGET nodescope_trace_reader)
  set(data ${PROJECT_SOURCE_DIR}/src/analysis/testdata)
  set(sample ${PROJECT_SOURCE_DIR}/src/export/testdata/sample.json)
  nodescope_cli_test(plot sample_svg EXIT 0 ARGS ${sample} OUTPUT sample.svg
    STDOUT "^wrote [^\n]*/sample.svg\n$" STDERR "^$"
    FILE "^<\\?xml [^\n]*\n<svg xmlns=.*>Graph 5 <tspan[^>]*>· [0-9.]+ µs · 2 nodes · 1 replay<.*<polyline.*<polyline.*</svg>\n$")
  nodescope_cli_test(plot sample_html EXIT 0 ARGS ${sample} OUTPUT sample.html
    STDOUT "^wrote " STDERR "^$"
    FILE "^<!DOCTYPE html>.*<svg xmlns=.*</svg>.*<script>.*</script>.*</html>\n$")
  nodescope_cli_test(plot replays_lines EXIT 0 ARGS ${data}/replays_8x200.json OUTPUT replays.svg
    STDOUT "^wrote " STDERR "^$"
    FILE "· 8 nodes · 200 replays<.*▲ 1 value above the axis, up to 640 µs.*#7</tspan> Memset \\(Device\\)")
  nodescope_cli_test(plot replays_heatmap EXIT 0
    ARGS ${data}/replays_8x200.json --heatmap --graph 3 OUTPUT replays_heatmap.html
    STDOUT "^wrote " STDERR "^$" FILE "data-kind=\"heat\".*>each cell vs\\.<.*>its row's median<")
  nodescope_cli_test(plot one_node EXIT 0
    ARGS ${data}/replays_8x200.json --graph 3 --node 2 --node 12884901895 OUTPUT one_node.svg
    STDOUT "^wrote " STDERR "^$" FILE "· 2 of 8 nodes · 200 replays<")
  # By weight (issue 30): the heavy graph (id 30) first, then graph 25, though 20 one-shot graphs
  # come before them by id; those share one table of 12 rows, and the 8 left out are said on
  # stderr. --top 1 keeps graph 30 alone.
  nodescope_cli_test(plot weights EXIT 0 ARGS ${data}/weights.json OUTPUT weights.svg
    STDOUT "^wrote "
    STDERR "^nodescope plot: warning: [^\n]*/weights.json: not drawn, the lightest: 8 of 22 graphs \\(8 of 25 nodes\\), 3.2 % of the GPU time in graphs; --top, --graph and --node choose what is drawn\n$"
    FILE "<svg [^\n]*\n.*>Graph 30 <tspan class=\"pd\">· 600 µs \\(78.9 %\\) · 3 nodes · 5 replays<.*>Graph 25 <.*>Graphs that ran once <.*… and 8 more graphs that ran once")
  nodescope_cli_test(plot weights_top EXIT 0 ARGS ${data}/weights.json --top 1 OUTPUT weights_top.svg
    STDOUT "^wrote " STDERR "the lightest: 9 of 22 graphs \\(10 of 25 nodes\\), 16.3 % of the GPU"
    FILE ">Graph 30 <tspan")
  nodescope_cli_test(plot no_keys EXIT 1 ARGS ${data}/torch.json OUTPUT no_keys.svg
    STDOUT "^$" STDERR "^nodescope plot: [^\n]*/torch.json: no GPU event carries both graph keys")
  nodescope_cli_test(plot unknown_graph EXIT 1 ARGS ${sample} --graph 99 OUTPUT unknown_graph.svg
    STDOUT "^$" STDERR "graph 99 is not in the trace; its graphs are 5\n$")
  nodescope_cli_test(plot unknown_node EXIT 1 ARGS ${sample} --node 12345 OUTPUT unknown_node.svg
    STDOUT "^$" STDERR "node 12345 is not in the trace\n$")
  nodescope_cli_test(plot bad_extension EXIT 2 ARGS ${sample} OUTPUT plot.png
    STDOUT "^$" STDERR "-o [^\n]*/plot.png: the output must end in .svg or .html\n$")
  nodescope_cli_test(plot truncated EXIT 2 ARGS ${data}/truncated.json OUTPUT truncated.svg
    STDOUT "^$" STDERR "^nodescope plot: [^\n]*/truncated.json: byte [0-9]+ \\(end of file\\)")
  nodescope_cli_test(plot missing EXIT 2 ARGS ${data}/no-such-file.json OUTPUT missing.svg
    STDOUT "^$" STDERR "/no-such-file.json: No such file or directory")
endif()


if(NODESCOPE_BUILD_TESTS AND TARGET nodescope_trace_reader)
  set(data ${PROJECT_SOURCE_DIR}/src/analysis/testdata)
  set(sample ${PROJECT_SOURCE_DIR}/src/export/testdata/sample.json)
  nodescope_cli_test(nodes sample EXIT 0 ARGS ${sample} STDERR "^$"
    STDOUT "^[^\n]*/sample.json\n\nGPU time 109.4 us: 5.900 us \\(5.4%\\) in 1 graph, 103.5 us \\(94.6%\\) outside graphs \\(4 launches\\)\n.*\ngraph 5 \\([^)]*\\): 2 nodes, 1 replay, 5.900 us GPU time in all\n.*first replay +5.900 us GPU time, 1.00x the median\n.*\n +0 +1 5.000 5.000 [^\n]* 84.7%  void kernel<3>\\(float\\*\\)\n +1 +1 0.900 [^\n]*  weird \"quoted\" \\\\path\\\\n\n$")
  nodescope_cli_test(nodes clean EXIT 0 ARGS ${data}/clean.json --width 90 STDERR "^$"
    STDOUT "graph 1 \\([^)]*\\): 6 nodes, 5 replays, 45.00 us GPU time in all\n  GPU time per replay +p50 9.000 us   p99 9.000 us\n.*idle gaps per replay +mean 3.500 us   p99 3.500 us   \\(5.00 gaps per replay\\)\n.*\n     0       5 7.500 1.500 [^\n]* 16.7%\n      void step0<float>\\(float\\*, int\\)\n.*graph 2 \\([^)]*\\): 2 nodes, 3 replays")
  nodescope_cli_test(nodes gzip EXIT 0 ARGS ${data}/clean.json.gz --width 90 STDERR "^$"
    STDOUT "^[^\n]*/clean.json.gz\n\nGPU time [^\n]*\n.*\ngraph 1 \\([^)]*\\): 6 nodes, 5 replays, 45.00 us GPU time in all\n.*\n     0       5 7.500 1.500 [^\n]* 16.7%\n      void step0<float>\\(float\\*, int\\)\n.*graph 2 \\([^)]*\\): 2 nodes, 3 replays")
  nodescope_cli_test(nodes rows EXIT 0 ARGS ${data}/replays_8x200.json --rows 2 --width 0 STDERR "^$"
    STDOUT "graph 3 \\([^)]*\\): 8 nodes \\(top 2 shown\\), 200 replays.*\n +0 +200 36359 181.8 [^\n]*  void cutlass::[^\n]*\n +4 +200 [^\n]*void flash_fwd_kernel[^\n]*\n$")
  nodescope_cli_test(nodes csv EXIT 0 ARGS ${data}/clean.json --csv STDERR "^$" PARSE csv ROWS 11
    STDOUT "^graph_id,node_id,name,cat,scope,replays,total_us,mean_us,p50_us,p95_us,p99_us,max_us,stddev_us,drift,share,row,graph_name\r\n1,,,,,5,45.000,9.000,9.000,,9.000,,,,0.[0-9]+,graph,graph-[0-9a-f]+\r\n2,.*\r\n1,4294967296,\"void step0<float>\\(float\\*, int\\)\",kernel,,5,7.500,")
  nodescope_cli_test(nodes csv_quoting EXIT 0 ARGS ${sample} --csv STDERR "^$" PARSE csv ROWS 7
    STDOUT "\r\n5,21474836481,\"weird \"\"quoted\"\" \\\\path\\\\n\",kernel,")
  nodescope_cli_test(nodes csv_graph_top EXIT 0 ARGS ${data}/clean.json --csv --graph 2 --top 1
    STDERR "^$" PARSE csv ROWS 1 STDOUT "\r\n2,8589934592,reduce_kernel,")
  nodescope_cli_test(nodes json EXIT 0 ARGS ${data}/clean.json --json STDERR "^$" PARSE json
    STDOUT "^{\"trace\":\"[^\"]*/clean.json\",\"overview\":{\"gpu_total_us\":[0-9.]+,.*\"lines\":\\[{\"kind\":\"graph\",\"graph_id\":1,\"name\":\"graph-[0-9a-f]+\",.*\"graphs\":\\[{\"graph_id\":1,\"replays\":5,")
  nodescope_cli_test(nodes json_sample EXIT 0 ARGS ${sample} --json STDERR "^$" PARSE json
    STDOUT "\"name\":\"weird \\\\\"quoted\\\\\" \\\\\\\\path\\\\n\"")
  nodescope_cli_test(nodes diff EXIT 0 ARGS ${data}/clean.json --diff ${data}/clean.json
    STDERR "^$" STDOUT "\ngraph 1: the same nodes in A and B\n.*6 matched, 0 only in A, 0 only in B\n.*\ngraph 2: the same nodes")
  nodescope_cli_test(nodes diff_other_ids EXIT 0 ARGS ${data}/clean.json --diff ${sample}
    STDERR "^$" STDOUT "graph 1: only in A \\(6 nodes, 5 replays\\).*graph 5: only in B.* only B  void kernel<3>")
  nodescope_cli_test(nodes diff_json EXIT 0 ARGS ${data}/clean.json --diff ${sample} --json
    STDERR "^$" PARSE json STDOUT "\"match\":\"only_b\",\"graph_id_a\":null,\"graph_id_b\":5,")
  nodescope_cli_test(nodes diff_csv EXIT 0 ARGS ${data}/clean.json --diff ${data}/clean.json --csv
    STDERR "^$" PARSE csv ROWS 8 STDOUT "^graph_match,graph_id_a,node_id_a,graph_id_b,")
  nodescope_cli_test(nodes no_keys EXIT 1 ARGS ${data}/torch.json STDOUT "^$"
    STDERR "^nodescope nodes: no graph-launched work with graph keys in [^\n]*/torch.json \\(was it recorded by nodescope run\\?\\)\n$")
  nodescope_cli_test(nodes unknown_graph EXIT 1 ARGS ${data}/clean.json --graph 9 STDOUT "^$"
    STDERR "no graph 9 in [^\n]*/clean.json \\(graphs: 1 graph-[0-9a-f]+, 2 graph-[0-9a-f]+\\)\n$")
  nodescope_cli_test(nodes truncated EXIT 2 ARGS ${data}/truncated.json STDOUT "^$"
    STDERR "^nodescope nodes: [^\n]*/truncated.json: byte [0-9]+ \\(end of file\\)")
  nodescope_cli_test(nodes missing EXIT 2 ARGS ${data}/no-such-file.json STDOUT "^$"
    STDERR "/no-such-file.json: No such file or directory\n$")
  nodescope_cli_test(nodes diff_unreadable EXIT 2 ARGS ${data}/clean.json --diff ${data}/not_json.json
    STDOUT "^$" STDERR "/not_json.json: byte 0: ")
  nodescope_cli_test(nodes csv_and_json EXIT 2 ARGS ${data}/clean.json --csv --json STDOUT "^$"
    STDERR "--csv excludes --json")
  # The overview (issue 30): 12 one-shot graphs before the heavy one in graph-id order, and
  # eager work outside graphs (make_overview_fixture.py): the heavy graph is ranked and detailed
  # first, the eager kernels are in the overview, --top 1 details one graph, and the heavy
  # graph's name is the same in a trace where every graph id differs.
  set(heavy "decode-e7f3b8f0")
  nodescope_cli_test(nodes overview_heavy_first EXIT 0 ARGS ${data}/overview_mixed.json --width 100
    STDERR "^$"
    STDOUT "^[^\n]*/overview_mixed.json\n\nGPU time 2.043 ms: 1.236 ms \\(60.5%\\) in 13 graphs, 807.0 us \\(39.5%\\) outside graphs \\(401 launches\\)\n\n[^\n]*\n[^\n]*\n  58.7%  1200    10 120.0 120.0 120.0    13  graph   ${heavy}\n  39.2% 800.0   400 2.000     -     -     -  kernel  void elementwise\\(float\\*\\)\n  +0.3% [^\n]*memcpy  Memcpy HtoD[^\n]*\n.*\n\ngraph 13 \\(${heavy}\\): 2 nodes, 10 replays[^\n]*\n.*\ngraph 1 \\(graph-[0-9a-f]+\\): 1 node")
  nodescope_cli_test(nodes overview_top EXIT 0 ARGS ${data}/overview_mixed.json --top 1 --width 100
    STDERR "^$"
    STDOUT "\n  58.7%  1200    10 [^\n]* ${heavy}\n  \\(14 more lines, 41.3% of GPU time, not shown: --top 0 shows every line\\)\n[^\n]*\n\ngraph 13 \\(${heavy}\\): 2 nodes[^\n]*\n([^g\n][^\n]*\n|\n)*$")
  nodescope_cli_test(nodes overview_json EXIT 0 ARGS ${data}/overview_mixed.json --json --top 2
    STDERR "^$" PARSE json
    STDOUT "\"overview\":{\"gpu_total_us\":2043.000,\"graphs_us\":1236.000,\"eager_us\":807.000,\"graph_count\":13,\"eager_launches\":401,\"lines_left_out\":13,\"left_out_us\":43.000,\"lines\":\\[{\"kind\":\"graph\",\"graph_id\":13,\"name\":\"${heavy}\",\"node_count\":2,\"sampled\":false,\"count\":10,\"total_us\":1200.000,\"share\":0.587372,\"mean_us\":120.000,\"gpu_per_replay_us\":{\"p50\":120.000,\"p99\":120.000}},{\"kind\":\"eager\",\"name\":\"void elementwise\\(float\\*\\)\",\"cat\":\"kernel\",\"count\":400,.*\"graphs\":\\[{\"graph_id\":13,.*\"name\":\"${heavy}\",\"nodes\":\\[.*\\]},{\"graph_id\":1,[^]]*\\]}\\]}\n$")
  nodescope_cli_test(nodes overview_csv EXIT 0 ARGS ${data}/overview_mixed.json --csv --top 2 --rows 1
    STDERR "^$" PARSE csv ROWS 4
    STDOUT "\r\n13,,,,,10,1200.000,120.000,120.000,,120.000,,,,0.587372,graph,${heavy}\r\n,,void elementwise\\(float\\*\\),kernel,,400,800.000,2.000,,,,2.000,,,0.391581,eager,\r\n13,55834574848,[^\n]*,node,${heavy}\r\n1,4294967296,")
  nodescope_cli_test(nodes graph_by_name EXIT 0
    ARGS ${data}/overview_mixed_ids.json --graph ${heavy} --width 100 STDERR "^$"
    STDOUT "^[^\n]*/overview_mixed_ids.json\n\ngraph 513 \\(${heavy}\\): 2 nodes, 10 replays")
  nodescope_cli_test(nodes graph_by_unknown_name EXIT 1
    ARGS ${data}/overview_mixed.json --graph decode-00000000 STDOUT "^$"
    STDERR "^nodescope nodes: no graph decode-00000000 in [^\n]*/overview_mixed.json \\(graphs: 1 graph-[0-9a-f]+, 2 graph-")
  nodescope_cli_test(nodes negative_top EXIT 2 ARGS ${data}/clean.json --top -1 STDOUT "^$"
    STDERR "--top: must not be negative")
endif()


# Hardening of check/nodes/plot output (issue 9): nothing from a trace reaches the terminal or a
# CSV cell raw; stdout write errors; stdin; empty and negative arguments; inconsistent node ids.
if(NODESCOPE_BUILD_TESTS AND TARGET nodescope_trace_reader)
  set(data ${PROJECT_SOURCE_DIR}/src/analysis/testdata)
  set(hostile ${CMAKE_CURRENT_SOURCE_DIR}/testdata)
  set(sample ${PROJECT_SOURCE_DIR}/src/export/testdata/sample.json)
  string(ASCII 27 esc)
  # A withheld key that would draw "verdict clean" over the real verdict.
  nodescope_cli_test(check escaped_withheld EXIT 0 ARGS ${hostile}/hostile.json STDERR "^$"
    STDOUT "^[^${esc}]*withheld attribution +\\\\x1B\\[1A\\\\x1B\\[2K\\\\r  verdict +clean\\\\x1B\\[8m=1\n[^${esc}]*$")
  foreach(command check nodes plot)
    set(output "")
    if(command STREQUAL "plot")
      set(output OUTPUT escaped_error.svg)
    endif()
    nodescope_cli_test(${command} escaped_error EXIT 2 ARGS ${hostile}/hostile_error.json
      ${output} STDOUT "^$"
      STDERR "^nodescope ${command}: [^\n${esc}]*hostile_error.json: byte 230: \"\\\\x1B\\[1A\\\\x1B\\[2K\\\\r  verdict +clean\\\\x1B\\[8m\" is a string[^${esc}]*$")
  endforeach()
  nodescope_cli_test(check escaped_path EXIT 2 ARGS "${hostile}/no${esc}c.json" STDOUT "^$"
    STDERR "^nodescope check: [^${esc}]*/no\\\\x1Bc.json: No such file")
  # U+202E (right-to-left override) and other controls in names.
  nodescope_cli_test(nodes escaped_names EXIT 0 ARGS ${hostile}/hostile.json --width 0
    STDERR "^$"
    STDOUT "^[^${esc}]*  \\\\u202Eevil_kernel\n.*  esc\\\\x1B\\[31mred\n.*  \\\\u0085\\\\u009B2J\n.*  \\\\rcr\n$")
  nodescope_cli_test(nodes csv_formulas EXIT 0 ARGS ${hostile}/hostile.json --csv STDERR "^$"
    PARSE csv ROWS 10
    STDOUT "^[^${esc}]*,\"'=HYPERLINK\\(\"\"http://x\"\",\"\"y\"\"\\)\",.*,\"'\\+cmd\",.*,\"'@SUM\\(A1\\)\",.*,\"'-2\\+3\",.*,\\\\tx,.*,esc\\\\x1B\\[31mred,.*,\\\\rcr,")
  nodescope_cli_test(plot negative_graph EXIT 2 ARGS ${sample} --graph -1 OUTPUT negative.svg
    STDOUT "^$" STDERR "--graph: must not be negative")
  nodescope_cli_test(plot negative_node EXIT 2 ARGS ${sample} --node -1 OUTPUT negative.svg
    STDOUT "^$" STDERR "--node: must not be negative")
  # Node ids whose upper 32 bits are not their graph id: said, not silently accepted.
  set(warning "warning: [^\n]*/mismatch.json: 2 of 3 node ids do not carry their graph id \\(node id >> 32 != graph id\\)")
  nodescope_cli_test(nodes mismatched_ids EXIT 0 ARGS ${hostile}/mismatch.json
    STDERR "^nodescope nodes: ${warning}"
    STDOUT "graph 1 \\([^)]*\\): 2 nodes.*\n  node >> 32 != graph id  1 of 2 nodes \\(shown by their whole ids.*\n  8589934593 +2 ")
  nodescope_cli_test(nodes mismatched_ids_json EXIT 0 ARGS ${hostile}/mismatch.json --json
    PARSE json STDERR "^nodescope nodes: ${warning}"
    STDOUT "\"graph_id\":1,\"replays\":2,\"node_count\":2,\"node_graph_mismatches\":1,")
  nodescope_cli_test(plot mismatched_ids EXIT 0 ARGS ${hostile}/mismatch.json OUTPUT mismatch.svg
    STDOUT "^wrote " STDERR "^nodescope plot: ${warning}" FILE "</svg>")
  # stdout that cannot be written (/dev/full, closed, EPIPE), "-" as stdin, empty arguments.
  if(Python3_EXECUTABLE)
    foreach(suite stdout-errors stdin empty-args)
      add_test(NAME cli_streams_${suite}
               COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/stream_tests.py
                       $<TARGET_FILE:nodescope_cli> ${data}
                       ${CMAKE_CURRENT_BINARY_DIR}/stream_tests ${suite})
      set_tests_properties(cli_streams_${suite} PROPERTIES LABELS "unit;cli" TIMEOUT 60)
    endforeach()
  endif()
endif()

# Trace reader (issue 9): every error names its byte, this one too (`\"` outside a string).
if(NODESCOPE_BUILD_TESTS AND TARGET nodescope_trace_reader)
  set(data ${PROJECT_SOURCE_DIR}/src/analysis/testdata)
  nodescope_cli_test(check string_error_byte EXIT 2 ARGS ${data}/escape_outside_string.json
    STDOUT "^$" STDERR "^nodescope check: [^\n]*/escape_outside_string.json: byte 3: a control character \\(a raw tab or newline\\?\\) inside a string\n$")
endif()

# run: the launch path without a GPU (run_cli_test.py; NODESCOPE_TEST_STUB_LAUNCHER=1 stands in
# for the CUDA driver): the report pipe, signals and orphans, environment checks, exit statuses.
if(NODESCOPE_BUILD_TESTS AND Python3_EXECUTABLE)
  foreach(case report_valid report_forged report_escape report_flood signals_forwarded no_orphan
               env_checked usage_statuses failed_trace_status)
    add_test(NAME run_cli_${case}
             COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/run_cli_test.py
                     $<TARGET_FILE:nodescope_cli> $<TARGET_FILE:nodescope>
                     ${CMAKE_CURRENT_BINARY_DIR}/run_cli/${case} ${case})
    set_tests_properties(run_cli_${case} PROPERTIES LABELS "unit;cli" TIMEOUT 120)
  endforeach()
endif()

# Bounded analysis memory (issue 9): past its limits (lowered here by hidden test options, so no
# test needs millions of events) each command says what it left out or estimated.
if(NODESCOPE_BUILD_TESTS AND TARGET nodescope_trace_reader)
  set(data ${PROJECT_SOURCE_DIR}/src/analysis/testdata)
  nodescope_cli_test(check keys_past_limit EXIT 1 ARGS ${data}/clean.json --max-keys 2
    STDERR "^$"
    STDOUT "\n  keys not checked +26 events on keys past the limits \\(2 keys, 128 MiB of names; 2 keys held\\): [^\n]*\n  verdict +incomplete\n$")
  nodescope_cli_test(check keys_past_limit_json EXIT 1 ARGS ${data}/clean.json --json
    --max-keys 2 STDERR "^$"
    STDOUT "\"unchecked_events\":26,\"max_keys\":2,\"max_name_bytes\":134217728,\"clean\":false,\"verdict\":\"incomplete\"}\n$")
  nodescope_cli_test(nodes samples_past_limit EXIT 0 ARGS ${data}/replays_8x200.json
    --max-samples 400
    STDERR "^nodescope nodes: warning: [^\n]*: more occurrences than the 400 held: percentiles, drift and per-replay figures of 8 nodes are estimated from a sample"
    STDOUT "\ngraph 3 \\([^)]*\\): 8 nodes, ~216 replays, [^\n]*\n  estimated \\(sampled\\) +from the 27 replays held, 1 in 8: ")
  nodescope_cli_test(nodes samples_past_limit_json EXIT 0 ARGS ${data}/replays_8x200.json --json
    --max-samples 400 PARSE json STDERR "more occurrences than the 400 held"
    STDOUT "\"sampled\":{\"replays_held\":27,\"one_replay_in\":8,\"estimated\":\\[\"replays\",")
  nodescope_cli_test(nodes nodes_past_limit EXIT 0 ARGS ${data}/replays_8x200.json --max-nodes 3
    STDERR "^nodescope nodes: warning: [^\n]*: 1000 keyed events of nodes past the first 3 are left out"
    STDOUT "\nleft out: 1000 keyed events of nodes past the first 3 \\(the limit on distinct nodes\\)\n\nGPU time [^\n]*\n.*\ngraph 3 \\([^)]*\\): 3 nodes, 200 replays,")
  # A sampled trace (NODESCOPE_SAMPLE) says so, in text and JSON.
  nodescope_cli_test(nodes sampled_trace EXIT 0 ARGS ${data}/sampled.json STDERR "^$"
    STDOUT "^[^\n]*/sampled.json\nsampled: about 1 launch in 20 traced \\(5 of 60 graph launches\\); replays and totals count traced replays")
  nodescope_cli_test(nodes sampled_trace_json EXIT 0 ARGS ${data}/sampled.json --json PARSE json
    STDERR "^$"
    STDOUT "\"launch_sampling\":{\"every\":20,\"graph_launches\":60,\"graph_launches_traced\":5}")
  # ... and in bursts (NODESCOPE_SAMPLE_BURST).
  nodescope_cli_test(nodes sampled_burst EXIT 0 ARGS ${data}/sampled_burst.json STDERR "^$"
    STDOUT "\nsampled: about 1 launch in 20 traced \\(5 of 60 graph launches, in bursts of 4 consecutive launches\\); ")
  nodescope_cli_test(nodes sampled_burst_json EXIT 0 ARGS ${data}/sampled_burst.json --json
    PARSE json STDERR "^$" STDOUT "\"launch_sampling\":{\"every\":20,\"burst\":4,\"graph_launches\":60,")
  # Within the limits: nothing estimated ("~") and no warning.
  nodescope_cli_test(nodes within_limits EXIT 0 ARGS ${data}/replays_8x200.json STDERR "^$"
    STDOUT "^[^~]*\ngraph 3 \\([^)]*\\): 8 nodes, 200 replays, [^~]*$")
  nodescope_cli_test(plot samples_past_limit EXIT 0 ARGS ${data}/replays_8x200.json
    --max-samples 400 OUTPUT sampled.svg STDOUT "^wrote "
    STDERR "more occurrences than the 400 held: 8 nodes are drawn over a sample"
    FILE "27 replays drawn: a sample, 1 in 8 replays \\(memory limit\\)")
endif()

# merge, check and nodes across ranks on the synthetic job of synthetic_job.h (make_rank_traces):
# two ranks, rank 1 slower by 50 us at node 1 (gemm_b), rank 0 waiting for it in the all-reduce.
if(NODESCOPE_BUILD_TESTS AND TARGET make_rank_traces)
  set(ranks_dir ${CMAKE_CURRENT_BINARY_DIR}/ranks_cli)
  add_test(NAME ranks_cli_setup
           COMMAND ${CMAKE_COMMAND} -E env sh -c "rm -rf '${ranks_dir}' && mkdir -p '${ranks_dir}' && $<TARGET_FILE:make_rank_traces> '${ranks_dir}' 2 10 1 50")
  set_tests_properties(ranks_cli_setup PROPERTIES FIXTURES_SETUP rank_traces LABELS "unit;cli")
  nodescope_cli_test(merge two_ranks EXIT 0 ARGS ${ranks_dir}/rank1.json ${ranks_dir}/rank0.json
    OUTPUT merged.json FILE "\"merged\":.\n    .\"slot\":0,\"rank\":0,\"world_size\":2,\"host\":\"hostA\""
    STDOUT "^$"
    STDERR "^nodescope merge: 2 traces, [0-9]+ events -> [^\n]*merged.json\n  slot 0   rank 0    host hostA +[+]0.000 ms  [0-9]+ events  [^\n]*rank0.json\n  slot 1   rank 1    host hostA +[+]1.000 ms")
  nodescope_cli_test(merge missing EXIT 2 ARGS ${ranks_dir}/rank0.json ${ranks_dir}/nope.json
    -o ${ranks_dir}/never.json STDOUT "^$" STDERR "nope.json: No such file or directory")
  nodescope_cli_test(merge stdin EXIT 2 ARGS - -o ${ranks_dir}/never.json STDOUT "^$"
    STDERR "standard input. cannot be merged")
  nodescope_cli_test(check merged EXIT 0 ARGS ${CMAKE_CURRENT_BINARY_DIR}/merge_cli/merged.json
    STDERR "^$"
    STDOUT "merged processes +2 \\(ranks 0, 1[;] keys are per process\\)\n  with graph keys +80\n  graph ids +2\n  node ids +8\n.*aliased keys +0\n.*verdict +clean\n$")
  nodescope_cli_test(nodes ranks EXIT 0 ARGS --width 100 ${ranks_dir}/rank0.json ${ranks_dir}/rank1.json
    STDERR "^$"
    STDOUT "graph 2 on 2 of 2 ranks \\(rank 1: graph 3\\), 4 nodes\n  straggler      rank 1 at node 1 \\(gemm_b\\): mean 70.00 us, 50.00 us above the median of the ranks' means\n  waiting        rank 0 at node 2 \\(ncclDevKernel_AllReduce_Sum_f32_RING_LL\\): 50.00 us per replay on average, over 10 replays\n")
  nodescope_cli_test(nodes ranks_merged EXIT 0 ARGS --width 100 ${CMAKE_CURRENT_BINARY_DIR}/merge_cli/merged.json
    STDERR "^$" STDOUT "  straggler      rank 1 at node 1 \\(gemm_b\\)")
  nodescope_cli_test(nodes ranks_csv EXIT 0 ARGS --csv ${ranks_dir}/rank0.json ${ranks_dir}/rank1.json
    PARSE csv ROWS 8 STDERR "^$" STDOUT "^graph_id,node_id,rank,source,")
  nodescope_cli_test(nodes ranks_json EXIT 0 ARGS --json ${ranks_dir}/rank0.json ${ranks_dir}/rank1.json
    PARSE json STDERR "^$" STDOUT "\"straggler\":{\"rank\":1,\"node_id\":8589934593,\"excess_us\":50.000}")
  nodescope_cli_test(nodes ranks_diff EXIT 2 ARGS ${ranks_dir}/rank0.json ${ranks_dir}/rank1.json
    --diff ${ranks_dir}/rank0.json STDOUT "^$" STDERR "--diff compares two traces")
  nodescope_cli_test(plot ranks EXIT 0 ARGS --node 1 ${ranks_dir}/rank0.json ${ranks_dir}/rank1.json
    OUTPUT ranks.svg STDERR "^$" STDOUT "^wrote [^\n]*ranks.svg\n$"
    FILE "rank 0: gemm_b.*rank 1: gemm_b")
  nodescope_cli_test(plot ranks_no_node EXIT 2 ARGS ${ranks_dir}/rank0.json ${ranks_dir}/rank1.json
    OUTPUT never.svg STDOUT "^$" STDERR "several ranks: name one node")
  set_tests_properties(merge_cli_two_ranks merge_cli_missing nodes_cli_ranks nodes_cli_ranks_csv
                       nodes_cli_ranks_json nodes_cli_ranks_diff plot_cli_ranks
                       plot_cli_ranks_no_node PROPERTIES FIXTURES_REQUIRED rank_traces)
  set_tests_properties(merge_cli_two_ranks PROPERTIES FIXTURES_SETUP merged_trace)
  set_tests_properties(check_cli_merged nodes_cli_ranks_merged PROPERTIES FIXTURES_REQUIRED
                       "rank_traces;merged_trace")
endif()

# Analysis hardening (issue 24).
if(NODESCOPE_BUILD_TESTS AND TARGET nodescope_trace_reader)
  set(data ${PROJECT_SOURCE_DIR}/src/analysis/testdata)
  # `check` refuses what `nodes` and `plot` refuse (it called these clean), in the same words.
  foreach(command check nodes plot)
    set(output "")
    if(command STREQUAL "plot")
      set(output OUTPUT refused.svg)
    endif()
    nodescope_cli_test(${command} refused_dur EXIT 2 ARGS ${data}/refused_dur.json ${output}
      STDOUT "^$"
      STDERR "^nodescope ${command}: [^\n]*/refused_dur.json: byte 167: \"dur\" is negative \\(-5.000000\\)\n$")
    nodescope_cli_test(${command} refused_ts EXIT 2 ARGS ${data}/refused_ts.json ${output}
      STDOUT "^$"
      STDERR "^nodescope ${command}: [^\n]*/refused_ts.json: byte 167: \"ts\" is 1e\\+29 us, too large for a time \\(at most 1e17 us\\)\n$")
    nodescope_cli_test(${command} refused_pid EXIT 2 ARGS ${data}/refused_pid.json ${output}
      STDOUT "^$"
      STDERR "^nodescope ${command}: [^\n]*/refused_pid.json: byte 167: \"pid\" 2516582500 names no process of a merged trace \\(pids of merged traces are below 512 << 22\\)\n$")
  endforeach()
  # The limits hold per trace file, its processes together: 4 processes of 2 nodes each, at most
  # 3 nodes held (rank 0's 2 and rank 1's first), the other 5 nodes' 15 events left out and said.
  set(merged ${data}/merged_4x2.json)
  nodescope_cli_test(nodes merged_within_limits EXIT 0 ARGS ${merged} --width 100 STDERR "^$"
    STDOUT "graph 1 on 4 of 4 ranks")
  nodescope_cli_test(nodes merged_nodes_past_limit EXIT 0 ARGS ${merged} --max-nodes 3 --width 100
    STDERR "^nodescope nodes: warning: [^\n]*/merged_4x2.json: 15 keyed events of nodes past the first 3 are left out \\(at most 3 distinct nodes are held per trace, its 4 processes together\\)\n$"
    STDOUT "graph 1 on 2 of 2 ranks")
  nodescope_cli_test(nodes merged_nodes_past_limit_csv EXIT 0 ARGS ${merged} --max-nodes 3 --csv
    PARSE csv ROWS 3 STDERR "15 keyed events of nodes past the first 3 are left out"
    STDOUT "^graph_id,node_id,rank,")
  nodescope_cli_test(nodes merged_samples_past_limit EXIT 0 ARGS ${merged} --max-samples 8
    STDERR "^nodescope nodes: warning: [^\n]*/merged_4x2.json: more occurrences than the 8 held: percentiles, drift and per-replay figures of [1-8] nodes are estimated"
    STDOUT "graph 1 on 4 of 4 ranks")
  nodescope_cli_test(plot merged_nodes_past_limit EXIT 0
    ARGS ${merged} --node 0 --max-nodes 3 OUTPUT merged_past_limit.svg STDOUT "^wrote "
    STDERR "^nodescope plot: warning: [^\n]*/merged_4x2.json: 15 keyed events of nodes past the first 3 are left out \\(at most 3 distinct nodes are held per trace, its 4 processes together\\)\n$"
    FILE "rank 0: void gemm.*rank 1: void gemm")
  # A merged trace with no graph work: said, as for one process (plot crashed: no input at all).
  nodescope_cli_test(plot merged_no_keys EXIT 1 ARGS ${data}/merged_no_keys.json
    OUTPUT merged_no_keys.svg STDOUT "^$"
    STDERR "^nodescope plot: [^\n]*/merged_no_keys.json: no GPU event carries both graph keys")
  nodescope_cli_test(nodes merged_no_keys EXIT 1 ARGS ${data}/merged_no_keys.json STDOUT "^$"
    STDERR "^nodescope nodes: no graph-launched work with graph keys in any trace\n$")
endif()

# `run --help` and the unknown-backend error list exactly the backends this build registered
# (nodescope_backend(), src/backends/CMakeLists.txt), in the order the CLI links their launchers.
get_property(backends GLOBAL PROPERTY NODESCOPE_BACKENDS)
list(JOIN backends ", " listed)
nodescope_cli_test(run lists_backends EXIT 0 ARGS --help
                   STDOUT "this build has: ${listed}[^,]" STDERR "^$")
nodescope_cli_test(run unknown_backend_lists_backends EXIT 125 ARGS --backend nosuch -- true
                   STDOUT "^$" STDERR "unknown backend 'nosuch' \\(this build has: ${listed}\\)")

# The subcommands, declared once (nodescope_subcommand() in CMakeLists.txt): the unknown-subcommand
# message (and --help) list exactly those this build has, in the declared order.
set(built ${NODESCOPE_SUBCOMMANDS})
if(NODESCOPE_NOT_BUILT)
  list(REMOVE_ITEM built ${NODESCOPE_NOT_BUILT})
endif()
list(JOIN built ", " built_listed)
nodescope_cli_test(nosuch lists_declared_subcommands EXIT 2 ARGS "" STDOUT "^$"
                   STDERR "\\(this build has: ${built_listed}\\)\n")

# The critical path on a real trace with its DAG (H200: `nodescope run -- dag_cases forkjoin 20 60
# 50`, docs/TRACE-DAG.md): the longer branch B is on the path in every replay, A has B - A slack.
if(NODESCOPE_BUILD_TESTS AND TARGET nodescope_trace_reader)
  set(fj ${PROJECT_SOURCE_DIR}/src/analysis/testdata/forkjoin_dag_h200.json)
  nodescope_cli_test(nodes critical_path_h200 EXIT 0 ARGS ${fj} --width 0 STDERR "^$"
    STDOUT "critical path +50 of 50 replays analysed; span p50 66.40 us\n.*100.0% +0.000 +30.32 +dag_branch_b\\(long long\\)\n.* 0.0% +40.26 +0.000 +dag_branch_a")
  nodescope_cli_test(nodes critical_path_h200_json EXIT 0 ARGS ${fj} --json STDERR "^$" PARSE json
    STDOUT "\"critical_path\":\\{\"dag\":true,\"speedup\":2,\"replays_from\":\"every_replay\",\"replays\":50,\"replays_analysed\":50")
endif()

# The small defects of issue 30 (item 6): each case failed before its fix.
if(NODESCOPE_BUILD_TESTS AND TARGET nodescope_trace_reader)
  set(data ${PROJECT_SOURCE_DIR}/src/analysis/testdata)
  # An unknown subcommand is named as such, with the subcommands this build has (not "A
  # subcommand is required"); exit status 2, as other usage errors.
  nodescope_cli_test(frobnicate unknown_subcommand EXIT 2 ARGS "" STDOUT "^$"
    STDERR "^nodescope: 'frobnicate' is not a subcommand \\(this build has: run, check, nodes, plot[^\n]*\\)\nRun with --help for more information.\n$")
  # `--node #N`, the form its help offers: the node of ordinal N.
  nodescope_cli_test(plot node_ordinal_hash EXIT 0
    ARGS ${data}/replays_8x200.json --graph 3 --node "#2" --node "#7" OUTPUT node_hash.svg
    STDOUT "^wrote " STDERR "^$" FILE "· 2 of 8 nodes · 200 replays<.*#7</tspan> Memset")
  nodescope_cli_test(plot node_ordinal_hash_too_large EXIT 2
    ARGS ${data}/replays_8x200.json --node "#4294967296" OUTPUT never.svg
    STDOUT "^$" STDERR "--node: #4294967296: an ordinal is below 2\\^32")
  # "gaps per replay" says what a gap is.
  nodescope_cli_test(nodes gaps_explained EXIT 0 ARGS ${data}/clean.json --width 90 STDERR "^$"
    STDOUT "\\(5.00 gaps per replay\\)\n                          gap = a time in a replay when none of its nodes runs\n")
  # One unit for every duration column of a table (the total was in ms, the others in us).
  nodescope_cli_test(nodes one_unit EXIT 0 ARGS ${data}/replays_8x200.json --width 0
    STDERR "^$" STDOUT "\n  node replays +total +mean [^\n]*\n +us +us +us +us +us +us +us\n")
  # Aliased keys (one key, events of several names) mix nodes: `nodes` says so on stderr.
  set(aliased_warning "warning: [^\n]*/aliased.json: 4 of 4 node keys are aliased \\(events of different names on one key\\), so their figures mix different nodes[;] `nodescope check` lists them\n")
  nodescope_cli_test(nodes aliased_warning EXIT 0 ARGS ${data}/aliased.json
    STDERR "^nodescope nodes: ${aliased_warning}$" STDOUT "graph 3 \\([^)]*\\): 4 nodes")
  nodescope_cli_test(plot aliased_warning EXIT 0 ARGS ${data}/aliased.json OUTPUT aliased.svg
    STDOUT "^wrote " STDERR "^nodescope plot: ${aliased_warning}$" FILE "<svg xmlns=")
  nodescope_cli_test(nodes aliased_warning_ranks EXIT 0
    ARGS ${data}/clean.json ${data}/aliased.json
    STDERR "^nodescope nodes: ${aliased_warning}$" STDOUT "graph 1 on 1 of 2 ranks")
endif()
if(NODESCOPE_BUILD_TESTS AND TARGET make_rank_traces)
  set(ranks_dir ${CMAKE_CURRENT_BINARY_DIR}/ranks_cli)
  # --top N across ranks: the N nodes with the most GPU time over the ranks, as for one trace.
  nodescope_cli_test(nodes ranks_top EXIT 0
    ARGS --width 100 --rows 2 ${ranks_dir}/rank0.json ${ranks_dir}/rank1.json STDERR "^$"
    STDOUT "graph 2 on 2 of 2 ranks \\(rank 1: graph 3\\), 4 nodes \\(top 2 shown\\)\n  straggler      rank 1 at node 1 \\(gemm_b\\)[^\n]*\n  waiting        rank 0 at node 2 [^\n]*\n(.*\n)? +1 +2 [^\n]*gemm_b\n +2 +2 [^\n]*ncclDevKernel_AllReduce_Sum_f32_RING_LL\n$")
  nodescope_cli_test(nodes ranks_top_csv EXIT 0
    ARGS --csv --rows 1 ${ranks_dir}/rank0.json ${ranks_dir}/rank1.json
    PARSE csv ROWS 2 STDERR "^$" STDOUT "^graph_id,node_id,rank,source,[^\n]*\n2,8589934593,0,")
  # One overview over both ranks: the graph (ids 2 and 3) is one line by its stable name.
  nodescope_cli_test(nodes ranks_overview EXIT 0
    ARGS --width 100 ${ranks_dir}/rank0.json ${ranks_dir}/rank1.json STDERR "^$"
    STDOUT "^ranks:[^\n]*\n\nGPU time 1.760 ms: 1.760 ms \\(100.0%\\) in 1 graph, none outside graphs\n\n[^\n]*\n[^\n]*\n  100.0%  1760    20 88.00 88.00 88.00     2  graph  graph-[0-9a-f]+\n[^\n]*\n\ngraph 2 on 2 of 2 ranks")
  nodescope_cli_test(nodes ranks_overview_json EXIT 0
    ARGS --json ${ranks_dir}/rank0.json ${ranks_dir}/rank1.json STDERR "^$" PARSE json
    STDOUT "\\],\"overview\":{\"gpu_total_us\":1760.000,.*\"count\":20,\"total_us\":1760.000,")
  set_tests_properties(nodes_cli_ranks_overview nodes_cli_ranks_overview_json PROPERTIES
                       FIXTURES_REQUIRED rank_traces)
  set_tests_properties(nodes_cli_ranks_top nodes_cli_ranks_top_csv PROPERTIES
                       FIXTURES_REQUIRED rank_traces)
endif()
