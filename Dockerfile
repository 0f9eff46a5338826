# signoff's image: the worker, the reviewer UI and every command (see temporal-dev.yml).
# A pinned slim Python; the package installed as a user gets it (no dev extras, no
# tests); a non-root user; configuration only through SIGNOFF_* environment variables.

FROM python:3.12.8-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    UV_PYTHON_DOWNLOADS=never UV_PROJECT_ENVIRONMENT=/opt/signoff \
    UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy UV_NO_CACHE=1
# The installer at the version the Makefile pins (UV_VERSION).
RUN pip install uv==0.13.9
WORKDIR /src
COPY pyproject.toml uv.lock README.md ./
COPY workflows ./workflows
COPY activities ./activities
COPY approvals_ui ./approvals_ui
COPY signoff ./signoff
# Every dependency at the version and hash uv.lock pins (--locked: a stale lock stops
# the build), the project as a package, not editable. The postgres extra: psycopg, the
# driver of the store in temporal-dev.yml.
RUN uv sync --locked --no-editable --extra postgres --python /usr/local/bin/python

FROM python:3.12.8-slim-bookworm
ENV PATH=/opt/signoff/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    SIGNOFF_HOME=/var/lib/signoff
# The home holds generated secrets (UI secret) and the public decision keys; the
# decision service's private key ring goes in /var/lib/signoff-keys (temporal-dev.yml
# mounts a volume there for the UI only). Both owned by signoff, 0700.
RUN groupadd --system --gid 10001 signoff \
    && useradd --system --uid 10001 --gid signoff --home-dir /var/lib/signoff \
       --shell /usr/sbin/nologin signoff \
    && install -d -o signoff -g signoff -m 0700 /var/lib/signoff /var/lib/signoff-keys
COPY --from=build /opt/signoff /opt/signoff
USER signoff
WORKDIR /var/lib/signoff
ENTRYPOINT ["signoff"]
CMD ["--help"]
