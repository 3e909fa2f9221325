# One image for the API and the workers (docker-compose.yml picks the command).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY domino ./domino
COPY api ./api
COPY workers ./workers
RUN pip install --no-cache-dir .
USER nobody
EXPOSE 8000
CMD ["gunicorn", "--workers", "4", "--bind", "0.0.0.0:8000", "api.app:serve()"]
