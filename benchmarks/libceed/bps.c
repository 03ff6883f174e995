// CEED benchmark problems BP1, BP3 and BP5 with libCEED on the CPU: the operator apply y = A x on one process's box.
//
// Written for this repository against libCEED's public C API (ceed.h); it is not a copy of libCEED's examples.
// Build: benchmarks/libceed/build.sh LIBCEED_SRC ; run: benchmarks/libceed/run.sh RESULTS_DIR (see README.md).
//
// The mesh is a structured box of n x n x n hexahedra on [0,1]^3, split along z into `parts` slabs; this process
// builds only its own slab (part `part`) as an independent box: its own global (L-vector) numbering of the GLL nodes,
// no communication. The unknowns are H1 Lagrange, degree p, at the Gauss-Lobatto-Legendre nodes, P = p+1 per direction.
//   BP1  mass      Q = p+2 Gauss points per direction          (gallery Mass3DBuild / MassApply)
//   BP3  Poisson   Q = p+2 Gauss points per direction          (gallery Poisson3DBuild / Poisson3DApply)
//   BP5  Poisson   Q = p+1 Gauss-Lobatto points, collocated    (gallery Poisson3DBuild / Poisson3DApply)
// (q_extra = 1, 1, 0 as in libCEED's examples/petsc bps tables.)
//
// The geometric data (qdata) is built once by the Build QFunction's operator. Then y = A x is applied on the whole
// L-vector: warm-up until the time per apply settles (at least -warm seconds), then -samples samples of at least
// -sample_time seconds each. DOFs = all nodes of this process's box, boundary nodes included (no Dirichlet
// elimination; as libCEED's bpsraw counts global nodes). GDOF/s = DOFs / seconds per apply / 1e9.
//
// Two processes at once: give each -parts 2 -part i and the same -barrier DIR; they start the warm-up together and
// each keeps applying (unmeasured) until the other has finished its samples, so the samples of both overlap fully.
#define _DEFAULT_SOURCE
#include <ceed.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void Die(const char *msg) {
  fprintf(stderr, "bps: %s\n", msg);
  exit(1);
}

static int CmpDouble(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

// File-system barrier among nproc processes: create DIR/<tag>.<rank>, wait until all nproc exist.
static void Touch(const char *dir, const char *tag, int rank) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%d", dir, tag, rank);
  FILE *f = fopen(path, "w");
  if (!f) Die("cannot create barrier file");
  fclose(f);
}

static int AllThere(const char *dir, const char *tag, int nproc) {
  char        path[4096];
  struct stat st;
  for (int r = 0; r < nproc; r++) {
    snprintf(path, sizeof path, "%s/%s.%d", dir, tag, r);
    if (stat(path, &st)) return 0;
  }
  return 1;
}

static void Barrier(const char *dir, const char *tag, int rank, int nproc) {
  if (!dir) return;
  Touch(dir, tag, rank);
  while (!AllThere(dir, tag, nproc)) usleep(500);
}

int main(int argc, char **argv) {
  const char *resource = "/cpu/self/avx/blocked", *barrier = NULL;
  int         bp = 5, p = 7, parts = 1, part = 0, n = 0, samples = 5;
  double      target = 1728000, warm = 1.0, sample_time = 0.2;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-ceed") && v) resource = v, i++;
    else if (!strcmp(a, "-bp") && v) bp = atoi(v), i++;
    else if (!strcmp(a, "-p") && v) p = atoi(v), i++;
    else if (!strcmp(a, "-dofs") && v) target = atof(v), i++;
    else if (!strcmp(a, "-n") && v) n = atoi(v), i++;
    else if (!strcmp(a, "-parts") && v) parts = atoi(v), i++;
    else if (!strcmp(a, "-part") && v) part = atoi(v), i++;
    else if (!strcmp(a, "-warm") && v) warm = atof(v), i++;
    else if (!strcmp(a, "-samples") && v) samples = atoi(v), i++;
    else if (!strcmp(a, "-sample_time") && v) sample_time = atof(v), i++;
    else if (!strcmp(a, "-barrier") && v) barrier = v, i++;
    else {
      fprintf(stderr,
              "usage: bps [-ceed /cpu/self/avx/blocked] [-bp 1|3|5] [-p degree] [-dofs total_target | -n elems_per_dir]\n"
              "           [-parts k -part i] [-warm s] [-samples m] [-sample_time s] [-barrier DIR]\n");
      return 2;
    }
  }
  if (bp != 1 && bp != 3 && bp != 5) Die("-bp must be 1, 3 or 5");
  if (p < 1 || parts < 1 || part < 0 || part >= parts || samples < 1) Die("bad -p/-parts/-part/-samples");

  // Global mesh: n^3 elements with (n p + 1)^3 nodes closest to the target
  if (n <= 0) {
    double best = -1;
    for (int m = 1; m <= 4000; m++) {
      double nodes = pow(m * p + 1.0, 3), d = fabs(nodes - target);
      if (best < 0 || d < best) best = d, n = m;
      if (nodes > target) break;
    }
  }
  if (n < parts) Die("fewer elements along z than parts");
  const int ez0 = (int)((long)n * part / parts), ez1 = (int)((long)n * (part + 1) / parts);
  const int nex = n, ney = n, nez = ez1 - ez0;
  const int P = p + 1, Q = bp == 5 ? p + 1 : p + 2;
  const CeedQuadMode qmode = bp == 5 ? CEED_GAUSS_LOBATTO : CEED_GAUSS;
  const int Nx = nex * p + 1, Ny = ney * p + 1, Nz = nez * p + 1;
  const CeedInt nelem = nex * ney * nez, elemsize = P * P * P, nq = Q * Q * Q;
  const CeedSize nnodes = (CeedSize)Nx * Ny * Nz;
  const double volume = (double)nez / n;  // 1 x 1 x (nez/n)

  Ceed ceed;
  if (CeedInit(resource, &ceed)) Die("CeedInit failed");
  const char *used;
  CeedGetResource(ceed, &used);

  // 1D GLL nodes on [-1, 1] for the node coordinates
  CeedScalar *gll = malloc(sizeof(CeedScalar) * P);
  CeedLobattoQuadrature(P, gll, NULL);

  // Element-to-node map of this box (lexicographic GLL nodes in each element) and node coordinates
  CeedInt *offsets = malloc(sizeof(CeedInt) * (size_t)nelem * elemsize);
  for (int ez = 0, e = 0; ez < nez; ez++)
    for (int ey = 0; ey < ney; ey++)
      for (int ex = 0; ex < nex; ex++, e++)
        for (int k = 0; k < P; k++)
          for (int j = 0; j < P; j++)
            for (int i = 0; i < P; i++)
              offsets[(size_t)e * elemsize + i + P * (j + P * k)] = (ex * p + i) + Nx * ((ey * p + j) + Ny * (ez * p + k));
  CeedScalar *coords = malloc(sizeof(CeedScalar) * 3 * nnodes);
  double     *cx = malloc(sizeof(double) * Nx), *cy = malloc(sizeof(double) * Ny), *cz = malloc(sizeof(double) * Nz);
  for (int d = 0; d < 3; d++) {
    int     N = d == 0 ? Nx : d == 1 ? Ny : Nz, shift = d == 2 ? ez0 : 0;
    double *c = d == 0 ? cx : d == 1 ? cy : cz;
    for (int g = 0; g < N; g++) {
      int e = g / p, i = g % p;
      if (g == N - 1) e = (N - 1) / p - 1, i = p;
      c[g] = (shift + e + 0.5 * (gll[i] + 1.0)) / n;
    }
  }
  for (CeedSize g = 0; g < nnodes; g++) {
    CeedSize gx = g % Nx, gy = (g / Nx) % Ny, gz = g / ((CeedSize)Nx * Ny);
    coords[g] = cx[gx], coords[nnodes + g] = cy[gy], coords[2 * nnodes + g] = cz[gz];
  }

  // libCEED objects
  CeedElemRestriction rstr_u, rstr_x, rstr_qd;
  const CeedInt       qcomp = bp == 1 ? 1 : 6;
  CeedElemRestrictionCreate(ceed, nelem, elemsize, 1, 1, nnodes, CEED_MEM_HOST, CEED_COPY_VALUES, offsets, &rstr_u);
  CeedElemRestrictionCreate(ceed, nelem, elemsize, 3, nnodes, 3 * nnodes, CEED_MEM_HOST, CEED_COPY_VALUES, offsets, &rstr_x);
  CeedElemRestrictionCreateStrided(ceed, nelem, nq, qcomp, (CeedSize)nelem * nq * qcomp, CEED_STRIDES_BACKEND, &rstr_qd);
  CeedBasis basis_u, basis_x;
  CeedBasisCreateTensorH1Lagrange(ceed, 3, 1, P, Q, qmode, &basis_u);
  CeedBasisCreateTensorH1Lagrange(ceed, 3, 3, P, Q, qmode, &basis_x);

  CeedQFunction qf_build, qf_apply;
  CeedQFunctionCreateInteriorByName(ceed, bp == 1 ? "Mass3DBuild" : "Poisson3DBuild", &qf_build);
  CeedQFunctionCreateInteriorByName(ceed, bp == 1 ? "MassApply" : "Poisson3DApply", &qf_apply);

  CeedVector xcoord, qdata, x, y;
  CeedVectorCreate(ceed, 3 * nnodes, &xcoord);
  CeedVectorSetArray(xcoord, CEED_MEM_HOST, CEED_USE_POINTER, coords);
  CeedVectorCreate(ceed, (CeedSize)nelem * nq * qcomp, &qdata);
  CeedVectorCreate(ceed, nnodes, &x);
  CeedVectorCreate(ceed, nnodes, &y);

  CeedOperator op_build, op;
  CeedOperatorCreate(ceed, qf_build, CEED_QFUNCTION_NONE, CEED_QFUNCTION_NONE, &op_build);
  CeedOperatorSetField(op_build, "dx", rstr_x, basis_x, CEED_VECTOR_ACTIVE);
  CeedOperatorSetField(op_build, "weights", CEED_ELEMRESTRICTION_NONE, basis_x, CEED_VECTOR_NONE);
  CeedOperatorSetField(op_build, "qdata", rstr_qd, CEED_BASIS_COLLOCATED, CEED_VECTOR_ACTIVE);
  CeedOperatorCreate(ceed, qf_apply, CEED_QFUNCTION_NONE, CEED_QFUNCTION_NONE, &op);
  CeedOperatorSetField(op, bp == 1 ? "u" : "du", rstr_u, basis_u, CEED_VECTOR_ACTIVE);
  CeedOperatorSetField(op, "qdata", rstr_qd, CEED_BASIS_COLLOCATED, qdata);
  CeedOperatorSetField(op, bp == 1 ? "v" : "dv", rstr_u, basis_u, CEED_VECTOR_ACTIVE);

  double t_setup = Now();
  CeedOperatorApply(op_build, xcoord, qdata, CEED_REQUEST_IMMEDIATE);
  t_setup = Now() - t_setup;

  // Correctness: BP1 sum(M 1) = volume; BP3/BP5 x^T K x = volume for x = the x-coordinate, K x = 0 at interior nodes
  {
    CeedScalar *xa;
    CeedVectorGetArrayWrite(x, CEED_MEM_HOST, &xa);
    for (CeedSize g = 0; g < nnodes; g++) xa[g] = bp == 1 ? 1.0 : coords[g];
    CeedVectorRestoreArray(x, &xa);
    CeedOperatorApply(op, x, y, CEED_REQUEST_IMMEDIATE);
    const CeedScalar *ya, *xr;
    CeedVectorGetArrayRead(y, CEED_MEM_HOST, &ya);
    CeedVectorGetArrayRead(x, CEED_MEM_HOST, &xr);
    double value = 0, comp = 0, ymax = 0, interior_max = 0;  // compensated (Kahan) sum
    for (CeedSize g = 0; g < nnodes; g++) {
      double term = (bp == 1 ? ya[g] : xr[g] * ya[g]) - comp, next = value + term;
      comp = (next - value) - term, value = next;
      ymax = fmax(ymax, fabs(ya[g]));
      CeedSize gx = g % Nx, gy = (g / Nx) % Ny, gz = g / ((CeedSize)Nx * Ny);
      if (gx > 0 && gx < Nx - 1 && gy > 0 && gy < Ny - 1 && gz > 0 && gz < Nz - 1) interior_max = fmax(interior_max, fabs(ya[g]));
    }
    CeedVectorRestoreArrayRead(y, &ya);
    CeedVectorRestoreArrayRead(x, &xr);
    double rel = fabs(value - volume) / volume;
    int    ok  = rel < 1e-12;
    if (bp != 1) ok = rel < 1e-11 && interior_max <= 1e-11 * ymax;
    if (bp == 1) {
      printf("CHECK bp=1 p=%d part=%d/%d sum(M*1)=%.16g volume=%.16g relerr=%.2e %s\n", p, part, parts, value, volume, rel, ok ? "PASS" : "FAIL");
    } else {
      printf("CHECK bp=%d p=%d part=%d/%d x^T*K*x=%.16g volume=%.16g relerr=%.2e max|K*x|_interior/max|K*x|=%.2e %s\n", bp, p, part, parts, value,
             volume, rel, ymax > 0 ? interior_max / ymax : 0.0, ok ? "PASS" : "FAIL");
    }
    fflush(stdout);
    if (!ok) return 3;
  }

  // Timing input: a fixed non-trivial vector
  {
    CeedScalar *xa;
    CeedVectorGetArrayWrite(x, CEED_MEM_HOST, &xa);
    for (CeedSize g = 0; g < nnodes; g++) xa[g] = sin(1.0 + 0.001 * (double)g);
    CeedVectorRestoreArray(x, &xa);
  }

  Barrier(barrier, "ready", part, parts);

  // Warm-up until the time per apply settles: batches of >= 0.1 s, two in a row within 2 %, at least `warm` seconds
  double elapsed = 0, per = 0, prev = -1;
  long   nb = 1, warm_applies = 0;
  int    settled = 0;
  while (1) {
    double t0 = Now();
    for (long k = 0; k < nb; k++) CeedOperatorApply(op, x, y, CEED_REQUEST_IMMEDIATE);
    double t = Now() - t0;
    elapsed += t, warm_applies += nb, per = t / nb;
    if (t < 0.1) {
      nb *= 2;
      continue;
    }
    if (prev > 0 && fabs(per - prev) / prev < 0.02 && elapsed >= warm) {
      settled = 1;
      break;
    }
    if (elapsed > 10 * warm + 5) break;  // give up waiting; reported as settled=0
    prev = per;
  }

  // Samples
  long    per_sample = (long)ceil(sample_time / per);
  double *gdofs = malloc(sizeof(double) * samples), *secs = malloc(sizeof(double) * samples);
  if (per_sample < 1) per_sample = 1;
  for (int s = 0; s < samples; s++) {
    double t0 = Now();
    for (long k = 0; k < per_sample; k++) CeedOperatorApply(op, x, y, CEED_REQUEST_IMMEDIATE);
    double t  = Now() - t0;
    secs[s]   = t / per_sample;
    gdofs[s]  = (double)nnodes / secs[s] * 1e-9;
  }

  // Keep the other processes' samples company
  if (barrier) {
    Touch(barrier, "done", part);
    while (!AllThere(barrier, "done", parts)) CeedOperatorApply(op, x, y, CEED_REQUEST_IMMEDIATE);
  }

  double *sorted = malloc(sizeof(double) * samples), *ssorted = malloc(sizeof(double) * samples);
  memcpy(sorted, gdofs, sizeof(double) * samples);
  memcpy(ssorted, secs, sizeof(double) * samples);
  qsort(sorted, samples, sizeof(double), CmpDouble);
  qsort(ssorted, samples, sizeof(double), CmpDouble);
  double med  = samples % 2 ? sorted[samples / 2] : 0.5 * (sorted[samples / 2 - 1] + sorted[samples / 2]);
  double smed = samples % 2 ? ssorted[samples / 2] : 0.5 * (ssorted[samples / 2 - 1] + ssorted[samples / 2]);
  printf("RESULT bp=%d p=%d q=%d qmode=%s backend=%s part=%d/%d global_elems=%dx%dx%d local_elems=%dx%dx%d dofs=%td "
         "setup_s=%.3f warm_s=%.2f warm_applies=%ld settled=%d applies_per_sample=%ld samples=%d "
         "s_per_apply_median=%.6e gdofs_median=%.4f gdofs_min=%.4f gdofs_max=%.4f\n",
         bp, p, Q, qmode == CEED_GAUSS ? "gauss" : "gll", used, part, parts, n, n, n, nex, ney, nez, nnodes, t_setup, elapsed, warm_applies,
         settled, per_sample, samples, smed, med, sorted[0], sorted[samples - 1]);
  printf("SAMPLES gdofs=");
  for (int s = 0; s < samples; s++) printf("%s%.4f", s ? "," : "", gdofs[s]);
  printf("\n");

  CeedVectorDestroy(&x);
  CeedVectorDestroy(&y);
  CeedVectorDestroy(&qdata);
  CeedVectorDestroy(&xcoord);
  CeedOperatorDestroy(&op);
  CeedOperatorDestroy(&op_build);
  CeedQFunctionDestroy(&qf_apply);
  CeedQFunctionDestroy(&qf_build);
  CeedBasisDestroy(&basis_u);
  CeedBasisDestroy(&basis_x);
  CeedElemRestrictionDestroy(&rstr_u);
  CeedElemRestrictionDestroy(&rstr_x);
  CeedElemRestrictionDestroy(&rstr_qd);
  CeedDestroy(&ceed);
  free(offsets), free(coords), free(cx), free(cy), free(cz), free(gll);
  free(gdofs), free(secs), free(sorted), free(ssorted);
  return 0;
}
