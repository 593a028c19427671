# capstan_grpc_protos(<out var> <proto dir> <generated dir> <name>...): compiles <proto dir>/<name>.proto
# with protoc and grpc_cpp_plugin into <generated dir> at build time and sets <out var> to the .cc files
# (compiled without warnings: generated code). Needs Protobuf_PROTOC_EXECUTABLE and CAPSTAN_GRPC_CPP_PLUGIN.
function(capstan_grpc_protos out proto_dir gen_dir)
  set(sources)
  foreach(name ${ARGN})
    set(outs ${gen_dir}/${name}.pb.cc ${gen_dir}/${name}.pb.h ${gen_dir}/${name}.grpc.pb.cc ${gen_dir}/${name}.grpc.pb.h)
    add_custom_command(
      OUTPUT ${outs}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${gen_dir}
      COMMAND ${Protobuf_PROTOC_EXECUTABLE} -I ${proto_dir} --cpp_out=${gen_dir}
              --grpc_out=${gen_dir} --plugin=protoc-gen-grpc=${CAPSTAN_GRPC_CPP_PLUGIN}
              ${proto_dir}/${name}.proto
      DEPENDS ${proto_dir}/${name}.proto
      COMMENT "protoc ${name}.proto"
      VERBATIM)
    list(APPEND sources ${gen_dir}/${name}.pb.cc ${gen_dir}/${name}.grpc.pb.cc)
  endforeach()
  set_source_files_properties(${sources} PROPERTIES COMPILE_OPTIONS "-w")
  set(${out} ${sources} PARENT_SCOPE)
endfunction()
