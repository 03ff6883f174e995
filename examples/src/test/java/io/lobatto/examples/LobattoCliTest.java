package io.lobatto.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

import picocli.CommandLine;

/** The command-line program end to end on the CPU backend, at small sizes. */
class LobattoCliTest {

    private static String run(String... args) {
        StringWriter sw = new StringWriter();
        CommandLine cl = LobattoCli.commandLine();
        cl.setOut(new PrintWriter(sw, true));
        cl.setErr(new PrintWriter(sw, true));
        int code = cl.execute(args);
        assertEquals(0, code, "exit code; output:\n" + sw);
        return sw.toString();
    }

    @Test
    void poissonSolvesAndWritesAVtuFileThatParses(@TempDir Path dir) throws Exception {
        Path vtu = dir.resolve("u.vtu");
        String out = run("poisson", "-b", "cpu", "-N", "4", "-e", "2,2,3", "--vtu", vtu.toString());
        assertTrue(out.contains("backend cpu"), out);
        Matcher m = Pattern.compile("error: max ([0-9.eE+-]+), L2 ([0-9.eE+-]+)").matcher(out);
        assertTrue(m.find(), out);
        double maxErr = Double.parseDouble(m.group(1));
        assertTrue(maxErr < 1e-2 && maxErr > 1e-8, "max error " + maxErr);
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(vtu.toFile());
        Element piece = (Element) doc.getElementsByTagName("Piece").item(0);
        int points = (4 * 2 + 1) * (4 * 2 + 1) * (4 * 3 + 1);
        assertEquals(points, Integer.parseInt(piece.getAttribute("NumberOfPoints")));
        assertEquals(2 * 2 * 3, Integer.parseInt(piece.getAttribute("NumberOfCells")), "one Lagrange hexahedron per element");
        var arrays = doc.getElementsByTagName("DataArray");
        for (int i = 0; i < arrays.getLength(); i++) {
            Element a = (Element) arrays.item(i);
            // inline binary: base64 of a UInt64 byte count and the data
            byte[] raw = java.util.Base64.getDecoder().decode(a.getTextContent().strip());
            long bytes = java.nio.ByteBuffer.wrap(raw).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
            assertEquals(raw.length - 8, bytes, "byte count of DataArray " + a.getAttribute("Name"));
            long expected = switch (a.getAttribute("Name")) {
                case "u", "u_exact", "error" -> 8L * points;
                case "connectivity" -> 8L * 125 * 2 * 2 * 3;
                case "offsets" -> 8L * 2 * 2 * 3;
                case "types" -> 2 * 2 * 3;
                default -> 8L * 3 * points; // Points
            };
            assertEquals(expected, bytes, "bytes in DataArray " + a.getAttribute("Name"));
        }
        assertTrue(Files.size(vtu) > 1000);
    }

    @Test
    void poissonOnAGmshMeshImposesTheExactSolutionOnTaggedFaces(@TempDir Path dir) throws Exception {
        Path msh = dir.resolve("two-hexes.msh");
        try (var in = LobattoCliTest.class.getResourceAsStream("/two-hexes.msh")) {
            Files.copy(in, msh);
        }
        String out = run("poisson", "-b", "cpu", "--mesh", msh.toString(), "-N", "8");
        Matcher m = Pattern.compile("error: max ([0-9.eE+-]+)").matcher(out);
        assertTrue(m.find(), out);
        // measured: N=6 1.2e-4; N=8 is well below (non-homogeneous Dirichlet data lifted correctly)
        assertTrue(Double.parseDouble(m.group(1)) < 1e-5, out);
        assertTrue(out.contains("elements = 2"), out);
    }

    @Test
    void sweepPrintsAConvergenceTable() {
        String out = run("poisson", "-b", "cpu", "-e", "2,2,2", "--sweep", "2..5");
        for (int n = 2; n <= 5; n++) {
            assertTrue(Pattern.compile("(?m)^\\s+" + n + "\\s+\\d+\\s+\\d+").matcher(out).find(), "row N=" + n + " in\n" + out);
        }
    }

    @Test
    void nekbonePrintsTheFigureOfMerit() {
        String out = run("nekbone", "-b", "cpu", "-N", "3", "-e", "3,3,3", "--iterations", "20", "--repeat", "1");
        assertTrue(out.contains("FOM") && out.contains("GFLOPS") && out.contains("GDOF/s"), out);
        assertEquals(12 * 4 * 4 * 4 * 4 + 34 * 64, NekboneCommand.nekboneFlopsPerIteration(1, 3), 0.0);
    }

    @Test
    void badArgumentsGiveANonZeroExitCode() {
        CommandLine cl = LobattoCli.commandLine();
        cl.setOut(new PrintWriter(new StringWriter()));
        cl.setErr(new PrintWriter(new StringWriter()));
        assertTrue(cl.execute("poisson", "-b", "cpu", "--pc", "magic") != 0);
        assertTrue(cl.execute("poisson", "-b", "cpu", "-N", "0") != 0);
    }
}
