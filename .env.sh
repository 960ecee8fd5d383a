export MCP_COMPARE_TOOLS=/work/main/tools MCP_COMPARE_SPEC=/work/shared/mcp-spec
export MCP_COMPARE_RESULTS=/work/wt-wire-hygiene/results MCP_COMPARE_BUILD=/work/wt-wire-hygiene/build
