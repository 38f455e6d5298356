"""Offline shim for TheRock's install_rocm_from_artifacts.py (integration.install_upstream).

Loaded through PYTHONPATH (with RK_THEROCK_BUILD_TOOLS set): it first loads
py312_compat's sitecustomize (Python 3.12 features for 3.11), then
  - points every boto3 S3 client at RK_S3_ENDPOINT (the test's s3rver on loopback), path
    style: Debian 12's botocore is older than AWS_ENDPOINT_URL;
  - answers the GitHub API's workflow-run query (fetch_artifacts.py asks which repository
    the run's head is in, to tell a fork's bucket) with the run itself: not a fork.
Changes nothing else; upstream's code runs unchanged.
"""
import os
import runpy
import sys

_here = os.path.dirname(os.path.abspath(__file__))
runpy.run_path(os.path.join(_here, "..", "py312_compat", "sitecustomize.py"))

_endpoint = os.environ.get("RK_S3_ENDPOINT")
_tools = os.environ.get("RK_THEROCK_BUILD_TOOLS")
if _endpoint and _tools:
    import boto3
    import boto3.session
    from botocore.config import Config

    _client = boto3.session.Session.client

    def client(self, service_name, *args, **kwargs):
        kwargs["endpoint_url"] = _endpoint
        path_style = Config(s3={"addressing_style": "path"})
        cfg = kwargs.get("config")
        kwargs["config"] = cfg.merge(path_style) if cfg else path_style
        return _client(self, service_name, *args, **kwargs)

    boto3.session.Session.client = client
    boto3.client = lambda *a, **k: client(boto3.session.Session(), *a, **k)

    sys.path.insert(0, _tools)
    import github_actions.github_actions_api as _gha

    _gha.gha_query_workflow_run_by_id = lambda repo, run_id: {
        "id": run_id,
        "head_repository": {"full_name": repo},
    }
