/work/main/userspace/check/tests/ktap.o: /work/main/selftests/host/ktap.c \
 /work/main/selftests/host/ktap.h
/work/main/selftests/host/ktap.h:
