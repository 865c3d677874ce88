"""The defect reproducers of hangar's tool access, as operators would write them.

Each is checked against hangar's own decide() in tests/access/test_hangar_findings.py and
without hangar in tests/access/test_hangar_answers.py.
"""

ALLOW_THEN_MEMBER = """
mcp_servers:
  api:
    command: [true]
    tools: {allow_list: ["*"]}
  core:
    mode: group
    auto_start: false
    tools: {deny_list: [drop_db]}
    members:
      - id: api
        tools: {allow_list: ["*_repo"], deny_list: [delete_repo]}
"""

APPROVAL_BESIDE_ALLOW = """
mcp_servers:
  api:
    command: [true]
    tools: {allow_list: ["*"]}
  core:
    mode: group
    auto_start: false
    tools: {deny_list: [drop_db]}
    members:
      - id: api
        tools: {allow_list: ["get_*"], approval_list: [deploy_app]}
"""

OWN_BLOCK_UNMAPPED = """
mcp_servers:
  api:
    command: [true]
    tools: {deny_list: [drop_db]}
  core:
    mode: group
    auto_start: false
    members:
      - id: api
"""

FIRST_HOLDER_TIMEOUT = """
mcp_servers:
  api:
    command: [true]
    tools: {approval_list: [deploy_app], approval_timeout_seconds: 600}
  core:
    mode: group
    auto_start: false
    tools: {approval_list: ["deploy_*"], approval_timeout_seconds: 60,
            approval_channel: slack}
    members:
      - id: api
"""

TENANTS = """
tool_access: {mode: front_door}
approvals: {channel: dashboard}
mcp_servers:
  api:
    command: [true]
    tools: {approval_list: ["deploy_*"]}
    tool_access:
      member:
        acme: {deny_list: [drop_db]}
"""
